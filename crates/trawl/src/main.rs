//! The `trawl` binary: parses the command line, resolves settings, runs one command, and
//! turns its outcome into an exit status (0 ok, 1 request-level error, 2 bad usage).

#![deny(unsafe_code)] // allowed only in mcp::conn (descriptor limit), mcp::sessions (malloc_trim) and tune_malloc

mod cli;
mod commands;
mod compat;
mod context;
mod dotenv;
mod errors;
mod github_token;
mod mcp;
mod net_args;
mod output;
mod reader;
mod redaction;
mod settings;

use clap::Parser;
use trawl_core::{Meta, TrawlError};

use crate::cli::{CacheCommand, Cli, Command, ConfigCommand, NetArgs, SearxngCommand};
use crate::output::report_error;
use crate::settings::{ProcessEnv, Settings};

fn main() {
    tune_malloc();
    exit_quietly_on_broken_pipe();
    let cli = Cli::parse();
    let code = run(cli);
    std::process::exit(code);
}

/// glibc malloc: four arenas per core instead of glibc's eight, each trimmed back to the
/// kernel once 128 KiB are free at its top.
///
/// - Arenas: a crawl runs on about eight threads (tokio's workers, and the blocking threads
///   its extraction and store calls hop between), and threads that share an arena wait on
///   its lock: with one arena per core, 60 futex calls a page on 2 cores, 12 with four per
///   core, and 9-12 % less CPU a page (BENCHMARKS.md §13.15). Fewer arenas were kept for
///   memory: each keeps what it frees (peak RSS 74-76 MiB with glibc's default long ago,
///   48 MiB with two).
/// - The trim threshold, fixed: glibc otherwise raises it (and the size it serves from
///   `mmap`) up to 64 MiB as large blocks are freed, and each arena keeps that much at its
///   top. Fixed at glibc's own starting value (which fixes the `mmap` threshold at its
///   128 KiB too), eight arenas peak at the RSS two had.
///
/// Set first, before any thread starts; `MALLOC_ARENA_MAX` or a `MALLOC_TRIM_THRESHOLD_` in
/// the environment is left to win.
#[allow(unsafe_code, reason = "mallopt has no safe wrapper; std offers none")]
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            let arenas = libc::c_int::try_from(cores.max(2) * 4).unwrap_or(libc::c_int::MAX);
            // SAFETY: mallopt only sets a malloc parameter; no other thread runs yet.
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, arenas);
            }
        }
        if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_none() {
            // SAFETY: as above.
            unsafe {
                libc::mallopt(libc::M_TRIM_THRESHOLD, 128 * 1024);
            }
        }
    }
}

/// A reader that went away (`trawl read … | head -1`) is not an error: `print!` panics on
/// EPIPE (Rust ignores SIGPIPE), so the panic hook turns exactly that panic into a quiet
/// exit 0, as ripgrep does; every other panic keeps the default report.
fn exit_quietly_on_broken_pipe() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && is_broken_pipe(message) {
            std::process::exit(0);
        }
        default_hook(info);
    }));
}

/// The message std's `print!` panics with carries the `io::Error`'s text, which names the
/// OS error: `Broken pipe (os error 32)`.
fn is_broken_pipe(message: &str) -> bool {
    let epipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe).to_string();
    message.contains("Broken pipe") || message.contains(&epipe)
}

/// Whether the command answers in JSON, and its network flags (for error reporting and
/// settings that must be known before it runs).
fn json_and_net(command: &Command) -> (bool, NetArgs) {
    match command {
        Command::Read(a) => (a.json, a.net.clone()),
        Command::Search(a) => (a.json, a.net.clone()),
        Command::Map(a) => (a.json, a.net.clone()),
        Command::Crawl(a) => (a.json, a.net.clone()),
        Command::Engines(f) => (f.json, NetArgs::default()),
        Command::Doctor(a) => (a.json, a.net.clone()),
        Command::Open(a) => (a.json, NetArgs::default()),
        Command::Sites(a) => (a.json, NetArgs::default()),
        Command::Searxng(SearxngCommand::Up(a)) => (a.json, NetArgs::default()),
        Command::Searxng(SearxngCommand::Status(f) | SearxngCommand::Down(f)) => {
            (f.json, NetArgs::default())
        }
        Command::Cache(
            CacheCommand::Stats(f) | CacheCommand::Prune(f) | CacheCommand::Doctor(f),
        ) => (f.json, NetArgs::default()),
        Command::Cache(CacheCommand::Clear(a)) => (a.json, NetArgs::default()),
        Command::Config(ConfigCommand::Show(f)) => (f.json, NetArgs::default()),
        Command::Config(ConfigCommand::Vars) => (false, NetArgs::default()),
        Command::Mcp(a) => (false, a.net.clone()),
        Command::Serve(a) => (false, a.net.clone()),
    }
}

/// Async workers for `command` on a machine of `cores`. A crawl's async side (requests,
/// its frontier and link bookkeeping) is light beside its CPU work (extraction, signatures,
/// the store), which runs on blocking threads, one slot a core: on two cores a second
/// async worker only added hand-offs between threads, 2-3 % of a crawl's CPU a page
/// (BENCHMARKS.md §13.17). Everything else keeps two, so that a server answers beside its
/// work.
fn async_workers(command: &Command, cores: usize) -> usize {
    match command {
        Command::Crawl(_) if crawls_on_one_worker(cores) => 1,
        _ => 2,
    }
}

/// Whether a crawl on a machine of `cores` runs on one async worker (and, in
/// `commands/crawl.rs`, extracts its pages on it).
pub(crate) fn crawls_on_one_worker(cores: usize) -> bool {
    cores <= 2
}

fn run(cli: Cli) -> i32 {
    let (json, net) = json_and_net(&cli.command);
    // Only the working directory's own `.env`, and only its API keys (see `dotenv`).
    let dotenv = std::env::current_dir()
        .map(|dir| dotenv::load(&dir))
        .unwrap_or_default();
    for line in &dotenv.ignored {
        eprintln!("{}", line.warning());
    }
    // The real environment is the process's own: a `.env` never reaches it (dotenv.rs).
    let flags = cli.setting_flags(&net);
    let settings = match settings::load_file(cli.config.as_deref())
        .and_then(|file| Settings::resolve(file, &dotenv, &ProcessEnv, &flags))
    {
        Ok(s) => s,
        Err(err) => return report_error(&err, json, Meta::default()),
    };
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    // CPU work runs on the blocking pool, not on the async workers: two of them unless
    // TOKIO_WORKER_THREADS (read by tokio itself) says otherwise, and one for a crawl on
    // two cores or fewer (`async_workers`).
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        builder.worker_threads(async_workers(&cli.command, cores));
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            let err = TrawlError::internal(format!("cannot start the async runtime: {e}"));
            return report_error(&err, false, Meta::default());
        }
    };
    match &cli.command {
        Command::Read(args) => runtime.block_on(commands::read(args, &settings)),
        Command::Search(args) => runtime.block_on(commands::search(args, &settings)),
        Command::Map(args) => runtime.block_on(commands::map(args, &settings)),
        Command::Crawl(args) => runtime.block_on(commands::crawl(args, &settings)),
        Command::Engines(f) => commands::engines(f, &settings),
        Command::Doctor(args) => runtime.block_on(commands::doctor(args, &settings)),
        Command::Open(args) => runtime.block_on(commands::open(args, &settings)),
        Command::Cache(cmd) => runtime.block_on(commands::cache(cmd, &settings)),
        Command::Sites(args) => runtime.block_on(commands::sites(args, &settings)),
        Command::Searxng(cmd) => runtime.block_on(commands::searxng(cmd, &settings)),
        Command::Config(ConfigCommand::Show(f)) => commands::config_show(&settings, f.json),
        Command::Config(ConfigCommand::Vars) => commands::config_vars(),
        Command::Mcp(_) => runtime.block_on(commands::mcp(&settings)),
        Command::Serve(_) => runtime.block_on(commands::serve(&settings)),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{Cli, async_workers};

    fn command(args: &[&str]) -> super::Command {
        Cli::try_parse_from(std::iter::once("trawl").chain(args.iter().copied()))
            .expect("the arguments parse")
            .command
    }

    #[test]
    fn a_crawl_on_two_cores_runs_one_async_worker_and_everything_else_two() {
        let crawl = command(&["crawl", "https://example.com/"]);
        assert_eq!(async_workers(&crawl, 1), 1);
        assert_eq!(async_workers(&crawl, 2), 1);
        assert_eq!(async_workers(&crawl, 3), 2);
        assert_eq!(async_workers(&crawl, 16), 2);
        for other in [
            &["serve"][..],
            &["mcp"],
            &["read", "https://example.com/"],
            &["map", "https://example.com/"],
        ] {
            assert_eq!(async_workers(&command(other), 2), 2, "{other:?}");
        }
    }
}
