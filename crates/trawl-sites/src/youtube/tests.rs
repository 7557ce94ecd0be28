use super::*;

fn fixture(name: &str) -> String {
    // Real watch pages (2025) and the timedtext sample of youtube-transcript-api's tests
    // (PROVENANCE.md).
    let path = format!("{}/fixtures/youtube/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn youtube() -> Url {
    Url::parse("https://www.youtube.com/").unwrap()
}

#[test]
fn watch_urls_short_links_and_shorts_are_routed_by_their_id() {
    let t = |raw: &str| route(&Url::parse(raw).unwrap());
    let id = || {
        Some(Ok(SiteTarget::YouTube {
            id: "GJLlxj_dtq8".into(),
        }))
    };
    assert_eq!(t("https://www.youtube.com/watch?v=GJLlxj_dtq8&t=10s"), id());
    assert_eq!(t("https://m.youtube.com/watch?v=GJLlxj_dtq8"), id());
    assert_eq!(t("https://youtu.be/GJLlxj_dtq8?si=x"), id());
    assert_eq!(t("https://youtube.com/shorts/GJLlxj_dtq8"), id());
    assert!(t("https://www.youtube.com/watch?v=bad").unwrap().is_err());
    // Channels, playlists and the front page are the generic tiers'.
    for raw in [
        "https://www.youtube.com/",
        "https://www.youtube.com/@Dave2D",
        "https://www.youtube.com/playlist?list=PL1",
        "https://www.youtube.com/watch",
        "https://notyoutube.com/watch?v=GJLlxj_dtq8",
    ] {
        assert_eq!(t(raw), None, "{raw}");
    }
}

#[test]
fn a_watch_page_gives_the_video_and_the_track_in_its_language() {
    let player = player_response(&fixture("watch-GJLlxj_dtq8-captions-2025.html")).unwrap();
    let video = parse_video(&player, "GJLlxj_dtq8").unwrap();
    assert_eq!(video.title, "Surface Go Review - It’s Awesome");
    assert_eq!(video.channel, "Dave2D");
    assert!(
        video
            .description
            .starts_with("Dave2D review of the Microsoft Surface Go.")
    );
    assert_eq!(
        video.published.as_deref(),
        Some("2018-08-02T06:00:08-07:00")
    );
    assert_eq!(video.seconds, Some(316));
    // Nine tracks, Chinese first; the automatic track is English, and the English track
    // people wrote is preferred over it.
    let (track, url) = caption_url(&player, &youtube()).unwrap();
    assert_eq!(track.language, "en");
    assert_eq!(track.name, "English");
    assert_eq!(url.host_str(), Some("www.youtube.com"));
    assert_eq!(url.path(), "/api/timedtext");
    let q: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    assert!(q.contains(&("lang".into(), "en".into())), "{url}");
    assert!(!q.iter().any(|(k, _)| k == "kind"), "{url}");
    // Under a moved base the same path and query go to it.
    let local = Url::parse("http://127.0.0.1:9/yt/").unwrap();
    let (_, moved) = caption_url(&player, &local).unwrap();
    assert!(
        moved
            .as_str()
            .starts_with("http://127.0.0.1:9/yt/api/timedtext?v=GJLlxj_dtq8"),
        "{moved}"
    );
}

#[test]
fn the_transcript_is_read_with_its_timings_and_markup_removed() {
    let lines = parse_timedtext(&fixture("timedtext-test-transcript.xml"));
    assert_eq!(lines.len(), 3, "the empty line is dropped: {lines:?}");
    assert_eq!(lines[1].text, "this is not the original transcript");
    assert!((lines[2].start - 5.7).abs() < 1e-9);
    let json3 = r#"{"events":[{"tStartMs":0,"dDurationMs":1000},{"tStartMs":61500,"segs":[{"utf8":"one "},{"utf8":"two"}]}]}"#;
    assert_eq!(
        parse_timedtext(json3),
        vec![Line {
            start: 61.5,
            text: "one two".into()
        }]
    );
    let player = player_response(&fixture("watch-GJLlxj_dtq8-captions-2025.html")).unwrap();
    let video = parse_video(&player, "GJLlxj_dtq8").unwrap();
    let track = Track {
        language: "en".into(),
        name: "English".into(),
    };
    let page = render(&video, Some((track, lines)));
    let md = &page.markdown;
    assert!(
        md.starts_with("# Surface Go Review - It’s Awesome\n\n**Dave2D** · 2018-08-02"),
        "{md}"
    );
    assert!(md.contains("## Description\n\nDave2D review"));
    assert!(
        md.contains(
            "## Transcript (English)\n\n[0:00] Hey, this is just a test\n[0:01] this is not"
        ),
        "{md}"
    );
    assert!(md.contains("[0:05] just something shorter"));
    assert_eq!(page.note, None);
}

#[test]
fn a_video_without_captions_reads_with_a_note() {
    let player = player_response(&fixture("watch-captions-disabled-2025.html")).unwrap();
    assert!(caption_url(&player, &youtube()).is_none());
    let video = parse_video(&player, "x").unwrap();
    assert!(
        video.title.starts_with("Angèle - Eels x Richard Cocciante"),
        "{}",
        video.title
    );
    let page = render(&video, None);
    assert_eq!(
        page.note.as_deref(),
        Some("no captions are published for this video")
    );
    assert!(
        page.markdown
            .contains("## Transcript\n\n_(no captions are published for this video.)_")
    );
}

#[test]
fn an_unavailable_video_is_an_error_naming_youtubes_reason() {
    let player = serde_json::json!({"playabilityStatus": {"status": "ERROR", "reason": "Video unavailable"}});
    let e = parse_video(&player, "abcdefghijk").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("Video unavailable"));
    assert!(player_response("<html>no player</html>").is_err());
}

#[test]
fn a_video_with_only_automatic_captions_reads_them_in_its_language() {
    // A real watch page (2023, served with a German interface): one track, Arabic,
    // auto-generated, and no translation languages.
    let player =
        player_response(&fixture("watch-P3pFkriw10Q-auto-captions-only-2023.html")).unwrap();
    let video = parse_video(&player, "P3pFkriw10Q").unwrap();
    assert_eq!(video.id, "P3pFkriw10Q");
    assert!(
        video.channel.ends_with("Mohamed Elkahlawy"),
        "{}",
        video.channel
    );
    let (track, url) = caption_url(&player, &youtube()).unwrap();
    assert_eq!(track.language, "ar");
    assert_eq!(track.name, "Arabisch (automatisch erzeugt)");
    assert!(url.query().unwrap().contains("kind=asr"), "{url}");
    let lines = vec![Line {
        start: 1.5,
        text: "مرحبا".into(),
    }];
    let page = render(&video, Some((track, lines)));
    assert!(
        page.markdown
            .contains("## Transcript (Arabisch (automatisch erzeugt))\n\n[0:01] مرحبا"),
        "{}",
        page.markdown
    );
    assert_eq!(page.note, None);
}

#[test]
fn a_bot_check_instead_of_the_video_is_blocked_with_youtubes_words() {
    // A real player response (2025) for a client YouTube took for a bot: LOGIN_REQUIRED,
    // no videoDetails.
    let player = player_response(&fixture("watch-not-a-bot-check-2025.html")).unwrap();
    let e = parse_video(&player, "GJLlxj_dtq8").unwrap_err();
    assert_eq!(e.code, ErrorCode::Blocked);
    assert!(
        e.message
            .contains("YouTube video GJLlxj_dtq8: Sign in to confirm you’re not a bot"),
        "{}",
        e.message
    );
}
