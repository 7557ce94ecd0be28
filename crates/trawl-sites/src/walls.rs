//! Login, consent and "open in app" walls: a page that answered 200 but whose body is a
//! wall asking to sign in is not content. Known sites (Zhihu, Medium member stories,
//! Quora, LinkedIn) are told by their markers, checked only on their own hosts, two
//! needed (a site's ordinary pages mention signing in too); any other site by shape: a
//! short page holding a password field or a sign-in form, or a known consent
//! interstitial's host.

use url::Url;

use crate::spec::host_matches;

struct Wall {
    site: &'static str,
    hosts: &'static [&'static str],
    /// Markers of the wall; at least two must be in the body.
    markers: &'static [&'static str],
}

const WALLS: &[Wall] = &[
    Wall {
        site: "zhihu",
        hosts: &["zhihu.com", "*.zhihu.com"],
        markers: &[
            "signFlowModal",
            "SignFlow",
            "登录/注册",
            "登录知乎",
            "打开知乎App",
        ],
    },
    Wall {
        site: "medium member-only story",
        hosts: &["medium.com", "*.medium.com"],
        markers: &[
            "Member-only story",
            "Sign up to read",
            "Become a member",
            "Create an account to read the full story",
        ],
    },
    Wall {
        site: "quora",
        hosts: &["quora.com", "*.quora.com"],
        markers: &[
            "Continue with Google",
            "Sign up to continue",
            "Log in to continue",
            "By continuing you indicate that you agree to Quora",
        ],
    },
    Wall {
        site: "linkedin",
        hosts: &["linkedin.com", "*.linkedin.com"],
        markers: &[
            "authwall",
            "Join LinkedIn",
            "Sign in to view",
            "Agree & Join LinkedIn",
        ],
    },
];

/// Hosts that only ever serve a consent interstitial.
const CONSENT_HOSTS: &[&str] = &[
    "consent.google.com",
    "consent.youtube.com",
    "consent.yahoo.com",
];

/// A page with more words than this is content even with a login box in a corner.
const WALL_MAX_WORDS: usize = 150;

/// Which wall `body` (fetched from `url`) is, if it is one: a known site's, a consent
/// interstitial, or a sign-in form by shape.
pub fn login_wall(url: &Url, body: &[u8]) -> Option<&'static str> {
    let host = url.host_str()?;
    if CONSENT_HOSTS.contains(&host) {
        return Some("consent page");
    }
    match WALLS.iter().find(|w| host_matches(host, w.hosts)) {
        Some(wall) => known_wall(wall, url, body),
        None => sign_in_by_shape(body),
    }
}

fn known_wall(wall: &Wall, url: &Url, body: &[u8]) -> Option<&'static str> {
    if wall.site == "linkedin" && url.path().starts_with("/authwall") {
        return Some(wall.site);
    }
    // Walls are small pages; reading the first 512 KiB is enough and bounds the work.
    let text = String::from_utf8_lossy(&body[..body.len().min(512 * 1024)]);
    let found = wall.markers.iter().filter(|m| text.contains(*m)).count();
    (found >= 2).then_some(wall.site)
}

/// A short HTML page whose point is signing in: a password field, or a form aimed at a
/// login or session endpoint, with little text besides.
fn sign_in_by_shape(body: &[u8]) -> Option<&'static str> {
    // Walls are small pages; a big one is content, and this bounds the work.
    if body.len() > 256 * 1024 {
        return None;
    }
    let text = String::from_utf8_lossy(body);
    let lower = text.to_ascii_lowercase();
    if !lower.contains("<form")
        && !lower.contains("type=\"password\"")
        && !lower.contains("type=password")
    {
        return None;
    }
    let doc = scraper::Html::parse_document(&text);
    let select = |s: &str| scraper::Selector::parse(s).expect("a valid selector");
    let password = doc
        .select(&select("input[type=password i]"))
        .next()
        .is_some();
    let sign_in_form = doc.select(&select("form")).any(|form| {
        let e = form.value();
        let aim = [
            e.attr("action"),
            e.attr("id"),
            e.attr("class"),
            e.attr("name"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
        [
            "login", "log-in", "signin", "sign-in", "sign_in", "session", "auth",
        ]
        .iter()
        .any(|w| aim.contains(w))
    });
    if !password && !sign_in_form {
        return None;
    }
    let skip = select("script, style, noscript, template");
    let hidden: std::collections::HashSet<_> = doc.select(&skip).map(|e| e.id()).collect();
    let words: usize = doc
        .root_element()
        .descendants()
        .filter(|n| !n.ancestors().any(|a| hidden.contains(&a.id())))
        .filter_map(|n| n.value().as_text().map(|t| t.split_whitespace().count()))
        .sum();
    (words <= WALL_MAX_WORDS).then_some("sign-in form")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn walls_are_told_from_content_on_their_own_hosts_only() {
        let medium_wall = b"<html><body><article><h1>A story</h1><p>Member-only story</p>\
            <p>Create an account to read the full story.</p><a>Sign up to read</a></article></body></html>";
        assert_eq!(
            login_wall(&url("https://medium.com/@a/story-1"), medium_wall),
            Some("medium member-only story")
        );
        // The same words elsewhere are content.
        assert_eq!(
            login_wall(&url("https://example.com/post"), medium_wall),
            None
        );
        // A free story that only mentions membership once is content.
        let free =
            b"<article><h1>Free</h1><p>Long text...</p><footer>Become a member</footer></article>";
        assert_eq!(login_wall(&url("https://medium.com/@a/free"), free), None);
        let zhihu = "<div class=\"signFlowModal\"><h2>登录知乎</h2></div>".as_bytes();
        assert_eq!(
            login_wall(&url("https://www.zhihu.com/question/1"), zhihu),
            Some("zhihu")
        );
        assert_eq!(
            login_wall(&url("https://www.linkedin.com/authwall?trk=x"), b""),
            Some("linkedin")
        );
        let quora = b"<div>Continue with Google</div><p>By continuing you indicate that you agree to Quora's Terms</p>";
        assert_eq!(
            login_wall(&url("https://www.quora.com/Why"), quora),
            Some("quora")
        );
    }

    #[test]
    fn a_short_page_with_a_sign_in_form_is_a_wall_on_any_site() {
        // Built in the shape of a login page served instead of an API's JSON (no saved one
        // found): a title, a form posting to /session with a password field, a footer.
        let login = b"<!DOCTYPE html><html><head><title>Log in to continue</title>\
            <script>var big = 'lots of script words that are not text at all';</script></head>\
            <body><h1>Log in to continue</h1><form action=\"/session\" method=\"post\">\
            <input name=\"login\"><input type=\"password\" name=\"password\">\
            <button>Sign in</button></form><footer>Terms Privacy</footer></body></html>";
        assert_eq!(
            login_wall(&url("https://api.example.org/item/1"), login),
            Some("sign-in form")
        );
        // A form aimed at a sign-in endpoint without a password field (an e-mail first step).
        let step =
            b"<html><body><form id=\"signin-form\" action=\"/u/login\"><input name=\"email\">\
            </form></body></html>";
        assert_eq!(
            login_wall(&url("https://x.example/a"), step),
            Some("sign-in form")
        );
        // An article with a login box in its sidebar is content.
        let article = format!(
            "<html><body><article><p>{}</p></article><aside><form action=\"/login\">\
             <input type=\"password\"></form></aside></body></html>",
            "Plenty of words in the article body. ".repeat(40)
        );
        assert_eq!(
            login_wall(&url("https://blog.example/post"), article.as_bytes()),
            None
        );
        // A search form is not a sign-in form.
        let search = b"<html><body><form action=\"/search\"><input name=q></form></body></html>";
        assert_eq!(login_wall(&url("https://example.org/"), search), None);
        assert_eq!(
            login_wall(
                &url("https://consent.google.com/ml?continue=x"),
                b"<html></html>"
            ),
            Some("consent page")
        );
    }
}
