//! YouTube through a video's watch page: the player response the page carries
//! (`ytInitialPlayerResponse`) gives the title, channel, description and the caption
//! tracks; the track in the video's own language (its auto-generated track's language),
//! else English, else the first, is read from the timedtext API (XML `<text start dur>`,
//! or json3 `events`). A video without captions still reads, with a note saying so.

use std::fmt::Write as _;

use serde_json::Value;
use trawl_core::{ErrorCode, TrawlError};
use url::Url;

use crate::client::{SiteClient, endpoint};
use crate::page::SitePage;
use crate::spec::{self, SiteSpec, Target as SiteTarget};

/// The reader's row in the table.
pub const SPEC: SiteSpec = SiteSpec {
    name: "youtube",
    hosts: &[
        "youtube.com",
        "www.youtube.com",
        "m.youtube.com",
        "youtu.be",
    ],
    pattern: "youtube.com/watch?v=ID, youtu.be/ID, m.youtube.com, /shorts/ID",
    reads: "title, channel, date, description and the transcript (the video's language, else English), or a note when no captions are published",
    needs: "nothing",
    base: "https://www.youtube.com/",
    confidence: "medium: four real watch pages (2023-2025, youtube-transcript-api's test assets: nine tracks, none, automatic captions only, a bot check); the timedtext answer is that library's hand-made sample in the real format; YouTube may ask for a proof-of-origin token on caption URLs (the transcript then comes back empty and the note says so)",
    fixtures: "crates/trawl-sites/fixtures/youtube (jdepoix/youtube-transcript-api test assets)",
    route,
};

/// The player response's status for a video that cannot be watched.
const UNPLAYABLE: &[&str] = &[
    "ERROR",
    "UNPLAYABLE",
    "LOGIN_REQUIRED",
    "AGE_CHECK_REQUIRED",
];

fn route(url: &Url) -> Option<Result<SiteTarget, String>> {
    let host = url.host_str()?.to_ascii_lowercase();
    if !spec::host_matches(&host, SPEC.hosts) {
        return None;
    }
    let s = spec::segments(url);
    let id = if host == "youtu.be" {
        match s.as_slice() {
            [id] => Some((*id).to_owned()),
            _ => None,
        }
    } else {
        match s.as_slice() {
            ["watch"] => url
                .query_pairs()
                .find(|(k, _)| k == "v")
                .map(|(_, v)| v.into_owned()),
            ["shorts" | "embed" | "live", id] => Some((*id).to_owned()),
            _ => None,
        }
    }?;
    // Video ids are 11 characters of the URL-safe base64 alphabet.
    let valid = id.len() == 11
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    Some(if valid {
        Ok(SiteTarget::YouTube { id })
    } else {
        Err(format!("{id:?} is not a YouTube video id"))
    })
}

/// Read video `id`: its watch page, then its chosen caption track.
pub async fn read(client: &SiteClient<'_>, id: &str) -> Result<SitePage, TrawlError> {
    let base = client.base(&SPEC);
    let watch = endpoint(&base, &format!("watch?v={id}&hl=en"))?;
    let html = client.get(&watch, &[]).await?;
    let player = player_response(&String::from_utf8_lossy(&html))?;
    let video = parse_video(&player, id)?;
    let captions = match caption_url(&player, &base) {
        Some((track, url)) => {
            let body = client.get(&url, &[]).await?;
            Some((track, parse_timedtext(&String::from_utf8_lossy(&body))))
        }
        None => None,
    };
    Ok(render(&video, captions))
}

/// The `ytInitialPlayerResponse` object a watch page's script assigns.
pub fn player_response(html: &str) -> Result<Value, TrawlError> {
    let shape = |why: &str| {
        TrawlError::new(
            ErrorCode::Upstream,
            format!("YouTube's watch page has no player response ({why})"),
        )
    };
    let at = html
        .find("ytInitialPlayerResponse")
        .ok_or_else(|| shape("no ytInitialPlayerResponse"))?;
    let rest = &html[at..];
    let start = rest.find('{').ok_or_else(|| shape("no object"))?;
    // The object is followed by more script: read exactly one JSON value.
    serde_json::Deserializer::from_str(&rest[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .ok_or_else(|| shape("not JSON"))
}

/// What a watch page says about its video.
#[derive(Debug, Clone, PartialEq)]
pub struct Video {
    /// The video's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The channel's name.
    pub channel: String,
    /// Its description.
    pub description: String,
    /// When it was published (the microformat's date).
    pub published: Option<String>,
    /// Its length in seconds.
    pub seconds: Option<u64>,
}

fn text<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// The video's details from its player response; an unplayable video is an error.
pub fn parse_video(player: &Value, id: &str) -> Result<Video, TrawlError> {
    let status = text(player, "/playabilityStatus/status").unwrap_or("OK");
    if UNPLAYABLE.contains(&status) {
        let reason = text(player, "/playabilityStatus/reason").unwrap_or(status);
        let code = if status == "ERROR" {
            ErrorCode::NotFound
        } else {
            ErrorCode::Blocked
        };
        return Err(TrawlError::new(
            code,
            format!("YouTube video {id}: {reason}"),
        ));
    }
    let details = player.get("videoDetails").ok_or_else(|| {
        TrawlError::new(
            ErrorCode::Upstream,
            format!("YouTube's player response for {id} has no videoDetails"),
        )
    })?;
    let micro = "/microformat/playerMicroformatRenderer";
    Ok(Video {
        id: text(details, "/videoId").unwrap_or(id).to_owned(),
        title: text(details, "/title").unwrap_or("(untitled)").to_owned(),
        channel: text(details, "/author")
            .unwrap_or("(unknown channel)")
            .to_owned(),
        description: text(details, "/shortDescription").unwrap_or("").to_owned(),
        published: text(player, &format!("{micro}/publishDate"))
            .or(text(player, &format!("{micro}/uploadDate")))
            .map(str::to_owned),
        seconds: text(details, "/lengthSeconds").and_then(|s| s.parse().ok()),
    })
}

/// The caption track chosen for a video, by its language and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Track {
    /// Its language code (`en`, `zh`, …).
    pub language: String,
    /// Its name as YouTube shows it (`English (auto-generated)`).
    pub name: String,
}

/// The track in the video's language (the language of its auto-generated track; a
/// track written by people preferred over the automatic one), else English, else the
/// first, with its timedtext URL moved under `base` when the reader's base was moved.
pub fn caption_url(player: &Value, base: &Url) -> Option<(Track, Url)> {
    let tracks = player
        .pointer("/captions/playerCaptionsTracklistRenderer/captionTracks")?
        .as_array()?;
    fn lang(t: &Value) -> &str {
        t.get("languageCode").and_then(Value::as_str).unwrap_or("")
    }
    let asr = |t: &Value| t.get("kind").and_then(Value::as_str) == Some("asr");
    let spoken = tracks.iter().find(|t| asr(t)).map(lang);
    let pick = |code: &str| {
        tracks
            .iter()
            .filter(|t| lang(t) == code)
            .min_by_key(|t| asr(t))
    };
    let chosen = spoken
        .and_then(pick)
        .or_else(|| pick("en"))
        .or(tracks.first())?;
    let raw = chosen.get("baseUrl").and_then(Value::as_str)?;
    let url = Url::parse(raw).or_else(|_| base.join(raw)).ok()?;
    // Under a moved base (a test server, a mirror), the same path and query go there.
    let url = if base.host_str() == Some("www.youtube.com") {
        url
    } else {
        let mut moved = base.join(url.path().trim_start_matches('/')).ok()?;
        moved.set_query(url.query());
        moved
    };
    let name = chosen
        .pointer("/name/simpleText")
        .and_then(Value::as_str)
        .or_else(|| chosen.pointer("/name/runs/0/text").and_then(Value::as_str))
        .unwrap_or(lang(chosen))
        .to_owned();
    Some((
        Track {
            language: lang(chosen).to_owned(),
            name,
        },
        url,
    ))
}

/// One caption line: when it starts (seconds) and what is said.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Its start, in seconds.
    pub start: f64,
    /// Its text, markup removed.
    pub text: String,
}

/// A timedtext answer (XML `<transcript><text start dur>` or json3 `events`) as lines;
/// empty lines are dropped.
pub fn parse_timedtext(body: &str) -> Vec<Line> {
    let trimmed = body.trim_start();
    let lines = if trimmed.starts_with('{') {
        json3(trimmed)
    } else {
        xml(trimmed)
    };
    lines.into_iter().filter(|l| !l.text.is_empty()).collect()
}

fn xml(body: &str) -> Vec<Line> {
    let Ok(doc) = roxmltree::Document::parse(body) else {
        return Vec::new();
    };
    doc.descendants()
        .filter(|n| n.has_tag_name("text") || n.has_tag_name("p"))
        .map(|n| {
            let start = n
                .attribute("start")
                .and_then(|s| s.parse().ok())
                // srv3's `<p t="ms">`.
                .or_else(|| {
                    n.attribute("t")
                        .and_then(|t| t.parse::<f64>().ok())
                        .map(|t| t / 1000.0)
                })
                .unwrap_or(0.0);
            let said: String = n
                .descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect();
            Line {
                start,
                text: plain(&said),
            }
        })
        .collect()
}

fn json3(body: &str) -> Vec<Line> {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return Vec::new();
    };
    v.get("events")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let segs = e.get("segs")?.as_array()?;
            let said: String = segs
                .iter()
                .filter_map(|s| s.get("utf8").and_then(Value::as_str))
                .collect();
            Some(Line {
                start: e.get("tStartMs").and_then(Value::as_f64).unwrap_or(0.0) / 1000.0,
                text: plain(&said),
            })
        })
        .collect()
}

/// Caption text without the markup some tracks carry escaped inside it (`<i>`, `<font>`),
/// on one line.
fn plain(said: &str) -> String {
    let fragment = scraper::Html::parse_fragment(said);
    let words: String = fragment.root_element().text().collect();
    words.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, m, s) => format!("{m}:{s:02}"),
        (h, m, s) => format!("{h}:{m:02}:{s:02}"),
    }
}

/// The video and its transcript as Markdown; `captions` is `None` when no track is
/// published, and the note says so (as it does for a track that came back empty).
pub fn render(video: &Video, captions: Option<(Track, Vec<Line>)>) -> SitePage {
    let mut md = format!("# {}\n\n", video.title);
    let facts: Vec<String> = [
        Some(format!("**{}**", video.channel)),
        video.published.clone(),
        video.seconds.map(|s| clock(s as f64)),
    ]
    .into_iter()
    .flatten()
    .collect();
    let _ = writeln!(md, "{}\n", facts.join(" · "));
    let _ = writeln!(md, "<https://www.youtube.com/watch?v={}>\n", video.id);
    if !video.description.trim().is_empty() {
        let _ = writeln!(md, "## Description\n\n{}\n", video.description.trim());
    }
    let note = match captions {
        Some((track, lines)) if !lines.is_empty() => {
            let _ = writeln!(md, "## Transcript ({})\n", track.name);
            for line in lines {
                let _ = writeln!(md, "[{}] {}", clock(line.start), line.text);
            }
            None
        }
        Some((track, _)) => Some(format!(
            "YouTube sent an empty transcript for the {} track",
            track.name
        )),
        None => Some("no captions are published for this video".to_owned()),
    };
    if let Some(note) = &note {
        let _ = writeln!(md, "## Transcript\n\n_({note}.)_");
    }
    SitePage {
        title: Some(video.title.clone()),
        markdown: md,
        byline: Some(video.channel.clone()),
        published: video.published.clone(),
        note,
    }
}

#[cfg(test)]
mod tests;
