use super::*;

const FOCAL: u64 = 1649191520250245121;

fn fixture() -> Value {
    // A real TweetDetail answer saved by twscrape's tests (2026-08, PROVENANCE.md): an
    // @XDevelopers post, a three-post chain under it and 33 more reply modules, 36 replies in all.
    let path = format!(
        "{}/fixtures/x/tweet-detail-1649191520250245121-2026.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn post_urls_of_both_hosts_are_routed_by_their_id() {
    let t = |raw: &str| route(&Url::parse(raw).unwrap());
    let want = Some(Ok(SiteTarget::X { id: FOCAL }));
    assert_eq!(
        t("https://x.com/XDevelopers/status/1649191520250245121"),
        want
    );
    assert_eq!(
        t("https://twitter.com/XDevelopers/status/1649191520250245121/photo/1"),
        want
    );
    assert_eq!(
        t("https://mobile.twitter.com/i/web/status/1649191520250245121"),
        want
    );
    for raw in [
        "https://x.com/XDevelopers",
        "https://x.com/home",
        "https://x.com/u/status/abc",
        "https://notx.com/u/status/1",
    ] {
        assert_eq!(t(raw), None, "{raw}");
    }
}

#[test]
fn a_reply_chain_is_nested_and_bounded_at_twenty() {
    let page = parse(&fixture(), FOCAL).unwrap();
    let md = &page.markdown;
    assert!(
        md.starts_with("# Developers (@XDevelopers)\n"),
        "{}",
        &md[..200]
    );
    assert!(md.contains("Today, we are deprecating our Premium v1.1 API, including Premium Search and Account Activity API."));
    assert_eq!(page.byline.as_deref(), Some("@XDevelopers"));
    assert_eq!(page.published.as_deref(), Some("2023-04-20T23:21:13Z"));
    // The first module is @XDevelopers' own chain: each post under the one it answers.
    let chain = md
        .find("- **@XDevelopers**")
        .expect("the chain's first post");
    let second = md[chain..]
        .find("\n  - **@XDevelopers**")
        .expect("second, one level in");
    assert!(
        md[chain + second..].contains("\n    - **@XDevelopers**"),
        "third, two levels in"
    );
    assert!(md.contains("On 3/29 we announced that deprecations"));
    assert!(md.contains("· 73 likes\n  On 3/29"), "{md}");
    // 36 replies in the answer; 20 shown, the rest marked.
    assert!(md.contains("## Replies (36 in this answer)"), "{md}");
    assert_eq!(md.matches("- **@").count(), MAX_REPLIES, "{md}");
    assert!(md.contains("more comment(s) not loaded (limit 20)"), "{md}");
}

#[test]
fn links_are_expanded_media_marked_and_more_replies_said() {
    let md = parse(&fixture(), FOCAL).unwrap().markdown;
    // The chain's third post: its t.co link as the URL it stands for.
    assert!(md.contains("https://shorturl.at/uwAKZ"), "{md}");
    assert!(!md.contains("https://t.co/A2FQP2DWuy"), "{md}");
    // X's reply_count (93) against the replies in this answer (36), a Bottom cursor present.
    assert!(
        md.contains("- _… X counts 93 replies; 36 are in this answer, the rest not loaded_"),
        "{md}"
    );
    // A reply whose text is only a video's t.co link reads as a video marker.
    let mut answer = fixture();
    let entries = answer
        .pointer_mut("/data/threaded_conversation_with_injections_v2/instructions/1/entries")
        .unwrap()
        .as_array_mut()
        .unwrap();
    // Real replies, moved first so the 20-reply bound keeps them: the video-only one and the
    // one with an animated GIF.
    let wanted = ["1649204618902097920", "1649263296434806785"];
    entries[1..].sort_by_key(|e| !wanted.iter().any(|id| e.to_string().contains(id)));
    let md = parse(&answer, FOCAL).unwrap().markdown;
    assert!(
        md.contains("[video](https://x.com/Mentor_0x39/status/1649204618902097920/video/1)"),
        "{md}"
    );
    assert!(!md.contains("https://t.co/bmpJzs74Ug"), "{md}");
    // The GIF's own t.co link gives way to its alt text.
    assert!(
        md.contains("[image: James Franco Omg GIF]") && !md.contains("https://t.co/3cSSGEQgiJ"),
        "{md}"
    );
}

#[test]
fn media_alt_text_and_a_quoted_post_are_shown() {
    let mut answer = fixture();
    let entries = answer
        .pointer_mut("/data/threaded_conversation_with_injections_v2/instructions/1/entries")
        .unwrap()
        .as_array_mut()
        .unwrap();
    // Built: the reply carrying an image (alt text "James Franco Omg GIF") is made the
    // post the focal post quotes, as X nests one.
    let quoted = entries
        .iter()
        .flat_map(|e| {
            e["content"]["items"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|i| i["item"]["itemContent"]["tweet_results"]["result"].clone())
        .find(|r| r.to_string().contains("James Franco Omg GIF"))
        .unwrap();
    entries[0]["content"]["itemContent"]["tweet_results"]["result"]["quoted_status_result"] =
        serde_json::json!({ "result": quoted });
    let md = parse(&answer, FOCAL).unwrap().markdown;
    let q = md.find("## Quoted post\n\n> **").expect("a quoted section");
    assert!(
        md[q..].contains("[image: James Franco Omg GIF]"),
        "{}",
        &md[q..]
    );
    // The reply keeps its own alt text where it stands among the replies too.
    assert!(md.matches("[image: James Franco Omg GIF]").count() >= 1);
}

#[test]
fn an_expired_session_is_auth_and_a_missing_post_not_found() {
    let expired =
        serde_json::json!({"errors": [{"message": "Could not authenticate you", "code": 32}]});
    let e = parse(&expired, FOCAL).unwrap_err();
    assert!(e.message.starts_with("auth:"), "{}", e.message);
    assert!(!e.message.contains("ct0="));
    let other = parse(&fixture(), 1).unwrap_err();
    assert_eq!(other.code, ErrorCode::NotFound);
}
