//! trawl-crawl against a loopback site the tests generate (see `site`): what `map` asks
//! for and finds, and what a crawl fetches, stores and refuses.

mod crawl;
mod dedup;
mod map;
mod shared;
mod site;

use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};

/// A fetcher that may reach the loopback range (the test sites live there) and nothing
/// else that is private: the metadata address stays refused.
pub fn loopback_fetcher() -> Fetcher {
    let config = FetchConfig {
        policy: GuardPolicy {
            allow_private_hosts: false,
            allow_hosts: vec![HostRule::parse("127.0.0.0/8").unwrap()],
        },
        ..FetchConfig::default()
    };
    Fetcher::new(config).unwrap()
}
