//! trawl-sites' integration tests, one binary: a module per concern.

mod cookies;
mod loopback;
mod loopback_video_x;
