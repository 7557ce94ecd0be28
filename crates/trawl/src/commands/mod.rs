//! One file per subcommand, each exposing one function that returns the exit status.

mod config;
mod read;

pub use config::config_show;
pub use read::read;
