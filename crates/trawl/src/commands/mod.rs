//! One file per subcommand, each exposing one function that returns the exit status.

mod cache;
mod config;
pub mod crawl;
mod crawl_export;
mod doctor;
mod egress;
mod engines;
pub mod map;
mod mcp;
mod ocr_check;
mod open;
mod read;
mod read_files;
mod screenshot;
mod search;
mod searxng;
mod serve;
mod sites;

pub use cache::cache;
pub use config::{config_show, config_vars};
pub use crawl::crawl;
pub use doctor::doctor;
pub use engines::engines;
pub use map::map;
pub use mcp::mcp;
pub use open::open;
pub use read::read;
pub use search::search;
pub use searxng::searxng;
pub use serve::serve;
pub use sites::sites;
