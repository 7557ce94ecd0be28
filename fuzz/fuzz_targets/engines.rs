//! Fuzz every engine's parser: the first byte picks the engine, the rest is the body.
//! Any bytes must give items or a `ParseError`, never a panic or a hang.
//!
//! `cargo fuzz run engines` (with `RUSTC_BOOTSTRAP=1` on a stable toolchain).
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use trawl_search::{Engine, SearchRequest};

fn engines() -> &'static [Arc<dyn Engine>] {
    static ALL: OnceLock<Vec<Arc<dyn Engine>>> = OnceLock::new();
    ALL.get_or_init(trawl_search::engines::all)
}

fuzz_target!(|data: &[u8]| {
    let Some((selector, body)) = data.split_first() else {
        return;
    };
    let all = engines();
    let engine = &all[usize::from(*selector) % all.len()];
    let req = SearchRequest::new("fuzz");
    if let Ok(items) = engine.parse_for(body, &req) {
        for item in &items {
            // Whatever the parser let through must survive fusion's URL handling.
            let _ = trawl_search::fuse::dedup_key(&item.url);
        }
    }
    let _ = engine.note_from_body(body);
});
