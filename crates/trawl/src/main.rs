//! The `trawl` binary: parses the command line, resolves settings, runs one command, and
//! turns its outcome into an exit status (0 ok, 1 request-level error, 2 bad usage).

mod cli;
mod commands;
mod output;
mod reader;
mod settings;

use clap::Parser;
use trawl_core::Meta;

use crate::cli::{Cli, Command, ConfigCommand, NetArgs};
use crate::output::report_error;
use crate::settings::{ProcessEnv, Settings};

fn main() {
    // `.env` sits between the config file and the real environment: dotenvy never
    // overrides a variable that is already set.
    let _ = dotenvy::dotenv();
    let cli = Cli::parse();
    let code = run(cli);
    std::process::exit(code);
}

fn run(cli: Cli) -> i32 {
    let (json, net) = match &cli.command {
        Command::Read(a) => (a.json, a.net.clone()),
        Command::Config(ConfigCommand::Show(f)) => (f.json, NetArgs::default()),
    };
    let settings = match settings::load_file(cli.config.as_deref())
        .and_then(|(path, file)| Settings::resolve(path, file, &ProcessEnv, &net))
    {
        Ok(s) => s,
        Err(err) => return report_error(&err, json, Meta::default()),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error[internal]: cannot start the async runtime: {e}");
            return 1;
        }
    };
    match &cli.command {
        Command::Read(args) => runtime.block_on(commands::read(args, &settings)),
        Command::Config(ConfigCommand::Show(f)) => commands::config_show(&settings, f.json),
    }
}
