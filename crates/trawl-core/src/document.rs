//! What a read produces.

use serde::{Deserialize, Serialize};

/// What kind of page this is, from JSON-LD `@type`, `og:type`, the URL's shape and the
/// page's structure (repeated items, prices, code blocks, post markup).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageType {
    /// A news story, blog post or other article.
    Article,
    /// Reference or API documentation.
    Documentation,
    /// A forum or Q&A thread.
    Forum,
    /// A product page of a shop.
    Product,
    /// A list of links or items (category, search results, index).
    Listing,
    /// A shop's category page: a grid of products with prices.
    Collection,
    /// A landing page for a service, course or offer: headline sections rather than prose.
    Service,
    /// A person's or organisation's profile page.
    Profile,
    /// A page built around a video.
    Video,
    /// A PDF file.
    Pdf,
    /// Plain text, Markdown or JSON served as it is.
    Text,
    /// A site's home page.
    Homepage,
    /// Anything else.
    #[default]
    Other,
}

/// How the document's bytes were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FetchedVia {
    /// Plain HTTP client (tier 0).
    #[default]
    Http,
    /// Browser TLS impersonation (tier 1), after an anti-bot challenge.
    Impersonate,
    /// A local headless browser (tier 2), for a page that builds its text with scripts.
    Render,
    /// A local file.
    File,
    /// Standard input.
    Stdin,
    /// Jina's hosted reader (the first fallback).
    Jina,
    /// Tavily's extract API.
    Tavily,
    /// Firecrawl's scrape API.
    Firecrawl,
    /// Exa's contents API.
    Exa,
    /// The local store, with no request.
    Store,
    /// A site reader (a site's own API: GitHub, Hacker News, …); `attempts` name which.
    Site,
}

/// One step the read path tried, in order, with its outcome (`ok` or an error code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// Which tier or reader was tried (`http`, `impersonate`, `jina`, …).
    pub reader: String,
    /// `ok` or the error code it ended with.
    pub outcome: String,
    /// A short human-readable detail (status, vendor, reason), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A page read into Markdown plus metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The URL that was asked for.
    pub url: String,
    /// The URL after redirects (or the `--url` base for files and stdin).
    pub final_url: String,
    /// `host~<12 hex>`: stable for the canonical form of `final_url`.
    pub handle: String,
    /// The page's title.
    pub title: Option<String>,
    /// The author(s), as the page names them.
    pub byline: Option<String>,
    /// Publication date as found (ISO 8601 when the page gives one).
    pub published: Option<String>,
    /// Language code (BCP 47, e.g. `en`), declared or detected.
    pub language: Option<String>,
    /// The site's name (`og:site_name` or the like).
    pub site_name: Option<String>,
    /// The page's own summary (meta description).
    pub description: Option<String>,
    /// `<link rel=canonical>` or `og:url`, when the page declares one.
    pub canonical_url: Option<String>,
    /// What kind of page this is.
    pub page_type: PageType,
    /// 0..1; below 0.5 means "probably not the main content".
    pub quality_score: f32,
    /// Number of words in the main content.
    pub word_count: usize,
    /// The main content as Markdown, with absolute links.
    pub markdown: String,
    /// Plain text of the main content; left out of JSON when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Raw JSON-LD blocks as found in the page.
    pub json_ld: Vec<serde_json::Value>,
    /// Which tier, reader or source produced the bytes.
    pub fetched_via: FetchedVia,
    /// HTTP status of the final response (None for files and stdin).
    pub status: Option<u16>,
    /// The response's `Content-Type` (None for files and stdin).
    pub content_type: Option<String>,
    /// Every tier and reader tried, in order, with its outcome.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// Whether reader comments and reviews were kept (`trawl read --comments`): a stored
    /// copy remembers how it was read, so a read asking the other way reads the page again.
    /// Left out of JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub with_comments: bool,
    /// A PDF's page count; left out of JSON for everything else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    /// What the page's head states beyond the fields above; left out of JSON when empty.
    #[serde(default, skip_serializing_if = "HeadMeta::is_empty")]
    pub head: HeadMeta,
    /// Whether the text was read by OCR (an image, or a PDF of scanned pages); left out of
    /// JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    /// The OCR engine's mean word confidence, 0 to 100; set only with `ocr` when words were
    /// read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<f32>,
    /// An image's format, size and EXIF summary; left out of JSON for everything else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageInfo>,
}

/// What an image is, from its header and EXIF: never its GPS coordinates, only whether
/// it has them (a photo's position is personal; the file still holds it for whoever
/// asks it directly).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageInfo {
    /// `png`, `jpeg`, `tiff` or `webp`.
    pub format: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// When it was taken (EXIF `DateTimeOriginal`, else `DateTime`), as
    /// `YYYY-MM-DDTHH:MM:SS` in the camera's local time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken: Option<String>,
    /// The camera (EXIF `Make` and `Model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<String>,
    /// Whether the EXIF records a GPS position.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gps: bool,
}

/// A page's head as written: its `<title>`, OpenGraph title, description, image and URL,
/// `keywords`, `robots` and icon. The fields above are trawl's choice among such sources;
/// these are kept for callers that answer in another tool's shape (the compatible API's
/// `ogTitle`, `keywords`, `favicon`, …). Text from the page, like every field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadMeta {
    /// `<title>` as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_tag: Option<String>,
    /// `og:title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub og_title: Option<String>,
    /// `og:description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub og_description: Option<String>,
    /// `og:image`, absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub og_image: Option<String>,
    /// `og:url` as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub og_url: Option<String>,
    /// `<meta name=keywords>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keywords: Option<String>,
    /// `<meta name=robots>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robots: Option<String>,
    /// The icon's absolute URL (`<link rel=icon>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub favicon: Option<String>,
}

impl HeadMeta {
    /// Nothing was found.
    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|f| f.is_none())
    }

    fn fields(&self) -> [&Option<String>; 8] {
        [
            &self.title_tag,
            &self.og_title,
            &self.og_description,
            &self.og_image,
            &self.og_url,
            &self.keywords,
            &self.robots,
            &self.favicon,
        ]
    }

    /// Every field, mutably (for the caps).
    pub fn fields_mut(&mut self) -> [&mut Option<String>; 8] {
        [
            &mut self.title_tag,
            &mut self.og_title,
            &mut self.og_description,
            &mut self.og_image,
            &mut self.og_url,
            &mut self.keywords,
            &mut self.robots,
            &mut self.favicon,
        ]
    }
}
