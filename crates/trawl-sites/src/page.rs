//! What a site reader gives back: Markdown and the metadata its API named.

/// One page as a site reader read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SitePage {
    /// The page's title (a repository's name, an issue's title, a question).
    pub title: Option<String>,
    /// The content as Markdown, authors and dates included.
    pub markdown: String,
    /// Who wrote it, when the API says.
    pub byline: Option<String>,
    /// When it was published (ISO 8601), when the API says.
    pub published: Option<String>,
    /// Something the reader wants said beside the content (a video without captions).
    pub note: Option<String>,
}
