use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use proptest::prelude::*;

use super::*;

#[test]
fn urls_lose_userinfo_and_credential_values_only() {
    assert_eq!(
        redact_url("redis://user:s3cret@db.internal:6379/2"),
        "redis://****@db.internal:6379/2"
    );
    assert_eq!(redact_url("rediss://:pw@h/0"), "rediss://****@h/0");
    // Nothing to hide: the text comes back exactly as given (no trailing slash added).
    assert_eq!(
        redact_url("redis://127.0.0.1:6379"),
        "redis://127.0.0.1:6379"
    );
    assert_eq!(redact_url("http://file-proxy:1"), "http://file-proxy:1");
    assert_eq!(
        redact_url("https://e.com/s?q=rust%20lang&api_key=sk-1&keyword=k&monkey=m&accessToken=t"),
        "https://e.com/s?q=rust%20lang&api_key=****&keyword=k&monkey=m&accessToken=****"
    );
    assert_eq!(
        redact_url("https://e.com/cb#access_token=abc&state=1"),
        "https://e.com/cb#access_token=****&state=1"
    );
    assert_eq!(
        redact_url("https://TOKEN123@github.com/o/r"),
        "https://****@github.com/o/r"
    );
}

#[test]
fn text_that_is_not_a_url_is_masked_by_its_shape() {
    assert_eq!(
        redact_url("redis://user:pw@[bad/0?token=t&q=1"),
        "redis://****@[bad/0?token=****&q=1"
    );
    assert_eq!(redact_url("not a url"), "not a url");
}

#[test]
fn safe_url_shows_masked_and_sends_whole() {
    let url = SafeUrl::parse("socks5h://u:hunter2pass@proxy:1080/?sig=abc").unwrap();
    assert_eq!(url.to_string(), "socks5h://****@proxy:1080/?sig=****");
    assert_eq!(
        format!("{url:?}"),
        "SafeUrl(\"socks5h://****@proxy:1080/?sig=****\")"
    );
    assert_eq!(
        serde_json::to_string(&url).unwrap(),
        "\"socks5h://****@proxy:1080/?sig=****\""
    );
    assert_eq!(url.url().password(), Some("hunter2pass"));
    assert!(url.has_credentials());
    assert_eq!(url.secrets(), ["u:hunter2pass", "hunter2pass", "abc"]);
    assert!(
        !SafeUrl::parse("https://e.com/?keyword=x")
            .unwrap()
            .has_credentials()
    );
}

#[test]
fn secrets_show_their_length_only() {
    let key = Secret::new("sk-canary-0123456789");
    assert_eq!(key.to_string(), "****(20 chars)");
    assert_eq!(format!("{key:?}"), "Secret(****(20 chars))");
    assert_eq!(serde_json::to_string(&key).unwrap(), "\"****(20 chars)\"");
    assert_eq!(key.expose(), "sk-canary-0123456789");
}

#[test]
fn scrub_removes_every_spelling() {
    let secret = "sk/live+123 x";
    let text = format!(
        "raw {secret} pct {} form {} lower {} b64 {} json {}",
        "sk%2Flive%2B123%20x",
        "sk%2Flive%2B123+x",
        "sk%2flive%2b123%20x",
        STANDARD.encode(format!("user:{secret}")),
        serde_json::to_string("sk/live+123 x").unwrap(),
    );
    let out = scrub(&text, [secret]);
    assert!(!out.contains("live"), "{out}");
    assert!(out.contains("pct ****"), "{out}");
    // Short values are left alone.
    assert_eq!(scrub("a abc b", ["abc"]), "a abc b");
    assert_eq!(
        Scrubber::new(["sk-12345"]).scrub_bytes(b"bad key sk-12345 \xff"),
        b"bad key **** \xff"
    );
    assert!(Scrubber::new(Vec::<String>::new()).is_empty());
    assert!(!format!("{:?}", Scrubber::new(["sk-12345"])).contains("sk-"));
}

#[test]
fn error_chain_joins_causes_once() {
    #[derive(Debug)]
    struct E(&'static str, Option<Box<E>>);
    impl fmt::Display for E {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for E {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }
    let e = E(
        "error sending request: dns error",
        Some(Box::new(E(
            "dns error",
            Some(Box::new(E("no such host", None))),
        ))),
    );
    assert_eq!(
        error_chain(&e),
        "error sending request: dns error: no such host"
    );
}

/// Secret-like values: no `*` (the mask itself) and long enough to be scrubbed.
fn secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_./+=:~ -]{4,40}|[a-zA-Zé€ß0-9]{4,20}"
}

#[test]
fn urls_inside_text_are_redacted_and_the_rest_kept() {
    let text = "github answered 503 at http://tok:s3cret-pw@127.0.0.1:9/x?access_token=T0K3N&page=2 (after 2 s); see ://odd";
    let shown = redact_text(text);
    assert!(
        !shown.contains("s3cret-pw") && !shown.contains("T0K3N"),
        "{shown}"
    );
    assert!(
        shown.starts_with(
            "github answered 503 at http://****@127.0.0.1:9/x?access_token=****&page=2 (after 2 s)"
        ),
        "{shown}"
    );
    assert!(shown.ends_with("; see ://odd"), "{shown}");
    assert_eq!(redact_text("no url here"), "no url here");
}

proptest! {
    #[test]
    fn scrubbed_text_holds_no_spelling(
        key in secret(),
        before in "[^*]{0,30}",
        after in "[^*]{0,30}",
        pick in 0usize..64,
    ) {
        let all = spellings(&key);
        let spelled = &all[pick % all.len()];
        let text = format!("{before}{spelled}{after}");
        let out = scrub(&text, [&key]);
        for s in all.iter().filter(|s| s.chars().count() >= MIN_SECRET_CHARS) {
            prop_assert!(!out.contains(s.as_str()), "{s:?} in {out:?}");
        }
    }

    #[test]
    fn basic_auth_and_tokens_lose_the_secret_in_base64(
        user in "[a-z]{0,12}",
        key in secret(),
        url_safe in any::<bool>(),
    ) {
        let encoded = if url_safe { URL_SAFE.encode(format!("{user}:{key}")) }
            else { STANDARD.encode(format!("{user}:{key}")) };
        let out = scrub(&format!("Authorization: Basic {encoded}"), [&key]);
        // At most the characters that mix the secret's bits with its neighbours' remain.
        let kept = out.len() as isize - "Authorization: Basic ****".len() as isize;
        let around = (user.len() + 1).div_ceil(3) * 4 + 4;
        prop_assert!(kept <= around as isize, "{out:?} from {encoded:?}");
    }

    #[test]
    fn safe_urls_never_show_passwords_or_credential_values(
        password in "[A-Za-z0-9]{8,24}",
        token in "[A-Za-z0-9]{8,24}",
        word in "[a-z]{3,10}",
    ) {
        let raw = format!("https://user:{password}@host.test/p?{word}=v&api_key={token}&keyword=kw");
        let shown = redact_url(&raw);
        prop_assert!(!shown.contains(&password) && !shown.contains(&token), "{shown}");
        prop_assert!(shown.contains("keyword=kw"), "{shown}");
        let safe = SafeUrl::parse(&raw).unwrap();
        prop_assert_eq!(safe.to_string(), shown.clone());
        prop_assert_eq!(format!("{safe:?}"), format!("SafeUrl({shown:?})"));
        prop_assert_eq!(safe.url().as_str(), raw.as_str());
    }

    #[test]
    fn secrets_never_show_their_value(value in "[A-Za-z0-9]{8,64}") {
        let s = Secret::new(value.clone());
        let json = serde_json::to_string(&s).unwrap();
        for shown in [s.to_string(), format!("{s:?}"), json] {
            prop_assert!(!shown.contains(&value), "{shown}");
        }
    }
}
