//! Login and "open in app" walls: a page that answered 200 but whose body is a wall
//! asking to sign in (Zhihu, Medium member stories, Quora, LinkedIn) is not content.
//! Each site's markers are checked only on its own hosts, and a wall needs two of them
//! (a site's ordinary pages mention signing in too).

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

/// Which site's login wall `body` (fetched from `url`) is, if it is one.
pub fn login_wall(url: &Url, body: &[u8]) -> Option<&'static str> {
    let host = url.host_str()?;
    let wall = WALLS.iter().find(|w| host_matches(host, w.hosts))?;
    if wall.site == "linkedin" && url.path().starts_with("/authwall") {
        return Some(wall.site);
    }
    // Walls are small pages; reading the first 512 KiB is enough and bounds the work.
    let text = String::from_utf8_lossy(&body[..body.len().min(512 * 1024)]);
    let found = wall.markers.iter().filter(|m| text.contains(*m)).count();
    (found >= 2).then_some(wall.site)
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
}
