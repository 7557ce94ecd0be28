//! Test access to the saved engine responses in `../shared/fixtures/serp` (PROVENANCE.md
//! says where each came from).

/// The bytes of `path` under the SERP fixtures directory; a missing fixture fails the test.
pub(crate) fn serp(path: &str) -> Vec<u8> {
    let full = format!(
        "{}/../../../shared/fixtures/serp/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&full).unwrap_or_else(|e| panic!("fixture {full}: {e}"))
}
