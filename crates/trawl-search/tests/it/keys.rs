//! Key rotation: a 429/402/401 marks the key and the next one is used at once.

use trawl_search::{OutcomeKind, SearchRequest};

use crate::support::{Reply, fixture, serve};

#[tokio::test]
async fn rate_limited_key_rotates_to_the_next_and_cools_down() {
    let api = serve(|r| match r.header("X-Subscription-Token") {
        Some("key-one-aaaa") => Reply::status(429, b"{}".to_vec()).with_header("Retry-After", "60"),
        Some("key-two-bbbb") => Reply::ok(fixture("brave-api/web-search-hello-world.json")),
        _ => Reply::status(401, Vec::new()),
    })
    .await;
    let mut cfg = crate::config();
    cfg.set_keys("brave_api", crate::keys("key-one-aaaa,key-two-bbbb"));
    cfg.set_base("brave_api", api.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("hello world");
    req.engines = vec!["brave_api".into()];
    let data = router.search(&req).await;
    assert_eq!(data.engines[0].outcome, OutcomeKind::Ok);
    assert_eq!(data.engines[0].count, 20);
    assert_eq!(api.hits(), 2);
    // The first key is cooling down now: the next search goes straight to the second.
    let data = router.search(&req).await;
    assert_eq!(data.engines[0].outcome, OutcomeKind::Ok);
    assert_eq!(api.hits(), 3);
    let seen = api.seen.lock().unwrap();
    assert_eq!(seen[2].header("X-Subscription-Token"), Some("key-two-bbbb"));
}

#[tokio::test]
async fn quota_and_auth_failures_exhaust_keys() {
    let api = serve(|r| match r.header("X-API-KEY") {
        Some("quota-key-1111") => {
            Reply::status(402, br#"{"message":"Not enough credits"}"#.to_vec())
        }
        _ => Reply::status(401, br#"{"message":"Unauthorized"}"#.to_vec()),
    })
    .await;
    let mut cfg = crate::config();
    cfg.set_keys("serper", crate::keys("quota-key-1111,bad-key-2222"));
    cfg.set_base("serper", api.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("apple inc");
    req.engines = vec!["serper".into()];
    // First search: quota on key 1, then auth failure on key 2.
    let data = router.search(&req).await;
    assert_eq!(data.engines[0].outcome, OutcomeKind::AuthFailed);
    assert_eq!(api.hits(), 2);
    // Two more auth failures make key 2 invalid; key 1 stays out of quota for 24 h.
    router.search(&req).await;
    router.search(&req).await;
    let hits_before = api.hits();
    let data = router.search(&req).await;
    assert_eq!(
        api.hits(),
        hits_before,
        "no usable key left: nothing is sent"
    );
    let o = &data.engines[0];
    assert_eq!(o.outcome, OutcomeKind::QuotaExhausted);
    let detail = o.detail.as_deref().unwrap();
    assert!(detail.contains("1 out of quota, 1 invalid"), "{detail}");
    assert!(!detail.contains("quota-key") && !detail.contains("bad-key"));
}

#[tokio::test]
async fn serper_sample_through_the_router() {
    let api = serve(|_| Reply::ok(fixture("serper/search-apple-inc.json"))).await;
    let mut cfg = crate::config();
    cfg.set_keys("serper", crate::keys("k-123456"));
    cfg.set_base("serper", api.url());
    let router = crate::router(cfg);
    let mut req = SearchRequest::new("apple inc");
    req.engines = vec!["serper".into()];
    let data = router.search(&req).await;
    assert_eq!(data.engines[0].count, 8);
    let seen = api.seen.lock().unwrap();
    assert_eq!(seen[0].method, "POST");
    let body: serde_json::Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(body["q"], "apple inc");
}
