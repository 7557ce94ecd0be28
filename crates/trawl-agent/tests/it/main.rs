//! trawl-agent's integration tests, one binary: a module per concern.

mod site_cookies;
mod sites;
mod tools;
