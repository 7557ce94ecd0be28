//! One file per subcommand, each exposing one function that returns the exit status.

mod cache;
mod config;
mod mcp;
mod open;
mod read;
mod serve;

pub use cache::cache;
pub use config::config_show;
pub use mcp::mcp;
pub use open::open;
pub use read::read;
pub use serve::serve;
