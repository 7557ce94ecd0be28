//! The extractor from the outside: Markdown fidelity, metadata, charsets, body kinds,
//! boilerplate removal, robustness, and real pages of the shared benchmark (read in place).

use std::io::Read;
use std::path::PathBuf;

use trawl_core::{ErrorCode, PageType};
use trawl_extract::{ExtractOptions, decode_html, extract};
use url::Url;

fn url() -> Url {
    Url::parse("https://news.example.com/2024/05/01/story.html").unwrap()
}

fn html(body: &str) -> trawl_core::Document {
    extract(
        body.as_bytes(),
        Some("text/html; charset=utf-8"),
        &url(),
        &ExtractOptions::default(),
    )
    .expect("extract")
}

/// A paragraph long enough to count as running text.
fn para(topic: &str) -> String {
    format!(
        "<p>{topic} is discussed here at length, with details, examples, and a few asides that a reader would \
         want to keep, because this is the body of the page and not its furniture.</p>"
    )
}

fn article_page(inner: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>Story title | News</title>
        <meta property="og:title" content="Story title">
        <meta property="og:site_name" content="Example News">
        <meta property="og:type" content="article">
        <meta name="description" content="A story about things.">
        <meta name="author" content="Jane Doe">
        <meta property="article:published_time" content="2024-05-01T10:00:00Z">
        <link rel="canonical" href="/2024/05/01/story.html">
        </head><body>
        <header class="site-header"><nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li></ul></nav></header>
        <div id="cookie-banner"><p>We use cookies to improve your experience. Accept all cookies?</p></div>
        <main><article>
        {inner}
        <div class="share-bar"><a href="https://twitter.com/share">Share on Twitter</a> <a href="https://facebook.com/share">Share on Facebook</a></div>
        </article>
        <section class="related-articles"><h3>Related</h3><ul><li><a href="/a">Another story entirely</a></li><li><a href="/b">Yet another story</a></li></ul></section>
        <div id="comments" class="comments"><h3>Comments</h3><div class="comment"><p>Commenter Bob says this article is wonderful and he will share it with all of his friends tomorrow.</p></div></div>
        </main>
        <footer><p>Copyright Example News 2024. All rights reserved.</p></footer>
        </body></html>"#
    )
}

#[test]
fn markdown_keeps_headings_lists_emphasis_and_absolute_links() {
    let inner = format!(
        "<h1>Story title</h1>{}<h2>Second part</h2>{}<h3>Detail</h3>\
         <p>Read <a href=\"/docs/guide?x=1\">the guide</a> and <strong>bold</strong> and <em>italic</em> words.</p>\
         <ul><li>first item<ul><li>nested item</li></ul></li><li>second item</li></ul>\
         <ol><li>one</li><li>two</li></ol>{}",
        para("The first topic"),
        para("The second topic"),
        para("The third topic"),
    );
    let doc = html(&article_page(&inner));
    let md = &doc.markdown;
    assert!(md.contains("## Second part\n"), "{md}");
    assert!(md.contains("### Detail\n"), "{md}");
    assert!(
        md.contains("[the guide](https://news.example.com/docs/guide?x=1)"),
        "{md}"
    );
    assert!(md.contains("**bold**") && md.contains("*italic*"), "{md}");
    assert!(
        md.contains("- first item\n  - nested item\n- second item"),
        "{md}"
    );
    assert!(md.contains("1. one\n2. two"), "{md}");
    assert!(md.contains("The first topic is discussed"), "{md}");
}

#[test]
fn boilerplate_is_dropped() {
    let inner = format!("{}{}{}", para("Alpha"), para("Beta"), para("Gamma"));
    let doc = html(&article_page(&inner));
    let md = &doc.markdown;
    for junk in [
        "Home",
        "cookies",
        "Share on Twitter",
        "Another story entirely",
        "Commenter Bob",
        "Copyright",
    ] {
        assert!(!md.contains(junk), "{junk:?} should be dropped:\n{md}");
    }
    assert!(
        md.contains("Alpha is discussed") && md.contains("Gamma is discussed"),
        "{md}"
    );
    assert!(doc.quality_score >= 0.5, "quality {}", doc.quality_score);
}

#[test]
fn a_block_shipped_twice_is_read_once() {
    // A shop's description, once for wide screens and once for narrow ones: short
    // paragraphs, none long enough to count as a repeat alone, but the block repeats whole.
    let description = "<div class=\"product-description\"><p>Make each cup of tea feel special with a \
        wheel thrown mug in a white speckle finish with a clear glazed interior.</p>\
        <p>Handmade stoneware.</p><p>Size: approx. 9.5 x 13 x 7cm</p><p>Volume: approx. 350ml</p>\
        <p>Suitable for dishwashers and microwave ovens. Avoid thermal shock.</p></div>";
    let page = format!(
        "<html><head><title>Speckle mug</title></head><body><main><div class=\"product-meta\">\
         <h1>Speckle mug</h1><div class=\"price\">$60.00</div>{description}\
         <div class=\"add-to-cart\"><button>Add to cart</button></div>{description}\
         <p>Short line.</p><p>Short line.</p></div></main></body></html>"
    );
    let md = html(&page).markdown;
    assert_eq!(md.matches("Handmade stoneware.").count(), 1, "{md}");
    assert!(md.contains("Volume: approx. 350ml"), "{md}");
    // Short blocks ("Read more", a price, a line) may repeat.
    assert_eq!(md.matches("Short line.").count(), 2, "{md}");
}

#[test]
fn a_table_of_contents_bigger_than_the_chapter_is_still_navigation() {
    // An online book: the sidebar lists every section of the book, more text than the
    // short chapter beside it, but it is all links.
    let toc: String = (1..=60)
        .map(|i| {
            format!(
                "<li><a href=\"/ch{i}.html\"><b>{i}.1</b> Section number {i}: rules, gates, and circuits</a></li>"
            )
        })
        .collect();
    let page = format!(
        "<html><head><title>Plan and audience</title></head><body><div class=\"book\">\
         <div class=\"book-summary\"><nav role=\"navigation\"><ul class=\"summary\">{toc}</ul></nav></div>\
         <div class=\"book-body\"><h1>Plan and audience</h1>{}{}</div></div></body></html>",
        para("The plan of the book"),
        para("The intended audience")
    );
    let md = html(&page).markdown;
    assert!(md.contains("The plan of the book is discussed"), "{md}");
    assert!(md.contains("The intended audience is discussed"), "{md}");
    assert!(!md.contains("Section number"), "{md}");
}

#[test]
fn comments_under_a_question_or_an_answer_are_asides_in_a_q_and_a_thread() {
    let post = |class: &str, body: &str, comment: &str| {
        format!(
            "<div class=\"{class}\"><div class=\"post-layout\"><div class=\"post-body\">{body}</div>\
             <div class=\"comments\"><ul class=\"comments-list\"><li class=\"comment\">{comment} \
             <a href=\"/users/9\">someone</a> <time>May 2, 2009</time></li></ul></div></div></div>"
        )
    };
    let page = format!(
        "<html><head><title>Why is RAID not a backup?</title>\
         <script type=\"application/ld+json\">{{\"@type\":\"QAPage\"}}</script></head><body>\
         <div id=\"mainbar\"><h1>Why is RAID not a backup?</h1>{}<div id=\"answers\">{}{}</div></div></body></html>",
        post(
            "question",
            &para("The difference between redundancy and a backup"),
            "Good question, upvoted."
        ),
        post(
            "answer",
            &para("Redundancy guards against one kind of hardware failure"),
            "Will a backup refuse to copy a corrupt file?"
        ),
        post(
            "answer",
            &para("A backup keeps the older versions of a file"),
            "Man, I had to read this three times."
        ),
    );
    let doc = html(&page);
    assert_eq!(doc.page_type, PageType::Forum);
    let md = &doc.markdown;
    for kept in [
        "The difference between redundancy and a backup",
        "Redundancy guards against one kind",
        "A backup keeps the older versions",
    ] {
        assert!(md.contains(kept), "{kept:?} missing:\n{md}");
    }
    for aside in ["Good question", "refuse to copy", "read this three times"] {
        assert!(!md.contains(aside), "{aside:?} should be dropped:\n{md}");
    }
}

#[test]
fn a_posters_standing_beside_each_post_is_dropped_in_a_thread() {
    let post = |name: &str, extras: &str, body: &str| {
        format!(
            "<article class=\"message\"><div class=\"message-cell\"><h4>{name}</h4><h5>Full Member</h5>\
             <div class=\"message-userExtras\">{extras}</div></div>\
             <div class=\"message-main\"><time>Jul 18, 2024</time><div class=\"bbWrapper\">{body}</div></div></article>"
        )
    };
    let xenforo = "<dl class=\"pairs\"><dt>Joined</dt><dd>Jun 29, 2016</dd></dl>\
                   <dl class=\"pairs\"><dt>Messages</dt><dd>11</dd></dl>";
    let vbulletin = "<div>Join Date: <b>Aug 2008</b></div><div>Location: <b>SIN</b></div>";
    let page = format!(
        "<html><head><title>Interview invitations thread</title>\
         <script type=\"application/ld+json\">{{\"@type\":\"DiscussionForumPosting\"}}</script></head><body>\
         <div class=\"block-body\">{}{}{}</div></body></html>",
        post(
            "boobaloobie",
            xenforo,
            &para("The first interview invitations")
        ),
        post("pnomes", vbulletin, &para("A reply about invitations")),
        post(
            "boobaloobie",
            xenforo,
            "<p>Location: the second floor, by the lifts. Posts: see the pinned list.</p>"
        ),
    );
    let doc = html(&page);
    assert_eq!(doc.page_type, PageType::Forum);
    let md = &doc.markdown;
    for kept in [
        "Full Member",
        "The first interview invitations",
        "A reply about invitations",
        // A post's own text that happens to start with a label is longer than a stat line.
        "Location: the second floor",
    ] {
        assert!(md.contains(kept), "{kept:?} missing:\n{md}");
    }
    for stat in ["Joined", "Jun 29, 2016", "Messages", "Join Date", "SIN"] {
        assert!(!md.contains(stat), "{stat:?} should be dropped:\n{md}");
    }
}

#[test]
fn skip_links_are_dropped() {
    let inner = format!(
        "<p><a class=\"skip-link\" href=\"#story-body\">Skip to main content</a></p>{}{}\
         <p>See <a href=\"#notes\">the notes below</a> for sources.</p>",
        para("Alpha"),
        para("Beta")
    );
    let md = html(&article_page(&inner)).markdown;
    assert!(!md.contains("Skip to"), "{md}");
    assert!(
        md.contains("Alpha is discussed") && md.contains("the notes below"),
        "{md}"
    );
}

#[test]
fn comments_are_kept_when_asked() {
    let inner = format!("{}{}{}", para("Alpha"), para("Beta"), para("Gamma"));
    let page = article_page(&inner);
    let opts = ExtractOptions {
        include_comments: true,
        ..ExtractOptions::default()
    };
    let with = extract(page.as_bytes(), Some("text/html"), &url(), &opts).unwrap();
    let without = extract(
        page.as_bytes(),
        Some("text/html"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(!without.markdown.contains("Commenter Bob"));
    assert!(with.markdown.contains("Commenter Bob"), "{}", with.markdown);
}

#[test]
fn code_blocks_keep_language_and_whitespace() {
    let inner = format!(
        "{}<pre><code class=\"language-rust\">fn main() {{\n    if a &lt; b {{\n        println!(\"hi\");\n    }}\n}}</code></pre>\
         <div class=\"highlight-python\"><pre>def f():\n    return 1</pre></div>\
         <p>Call <code>f()</code> to get one.</p>{}",
        para("Code"),
        para("More code"),
    );
    let doc = html(&article_page(&inner));
    let md = &doc.markdown;
    assert!(
        md.contains(
            "```rust\nfn main() {\n    if a < b {\n        println!(\"hi\");\n    }\n}\n```"
        ),
        "{md}"
    );
    assert!(
        md.contains("```python\ndef f():\n    return 1\n```"),
        "{md}"
    );
    assert!(md.contains("Call `f()` to get one."), "{md}");
}

#[test]
fn tables_become_gfm_tables() {
    let inner = format!(
        "{}<table><thead><tr><th>Name</th><th>Value</th></tr></thead>\
         <tbody><tr><td>alpha</td><td>1 | 2</td></tr><tr><td colspan=2>wide</td></tr></tbody></table>{}",
        para("Tables"),
        para("After the table"),
    );
    let doc = html(&article_page(&inner));
    let md = &doc.markdown;
    assert!(
        md.contains("| Name | Value |\n| --- | --- |\n| alpha | 1 \\| 2 |\n| wide |  |"),
        "{md}"
    );
}

#[test]
fn images_become_alt_text_and_base_href_is_used() {
    let page = format!(
        "<html><head><base href=\"https://cdn.example.org/assets/\"></head><body><article>{}\
         <p>See <img src=\"pic.png\" alt=\"a red bicycle\"> and <a href=\"page.html\">this page</a>.</p>{}</article></body></html>",
        para("Images"),
        para("More images")
    );
    let doc = html(&page);
    assert!(
        doc.markdown
            .contains("![a red bicycle](https://cdn.example.org/assets/pic.png)"),
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown
            .contains("[this page](https://cdn.example.org/assets/page.html)"),
        "{}",
        doc.markdown
    );
    assert!(
        !doc.text.contains("bicycle"),
        "alt text stays out of plain text"
    );
}

#[test]
fn metadata_fields_are_read() {
    let inner = format!(
        "<script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\"@type\":\"NewsArticle\",\"headline\":\"LD headline\",\"author\":{{\"@type\":\"Person\",\"name\":\"Jane Doe\"}},\"datePublished\":\"2024-05-01\"}}</script>{}{}",
        para("Meta"),
        para("Data")
    );
    let doc = html(&article_page(&inner));
    assert_eq!(doc.title.as_deref(), Some("Story title"));
    assert_eq!(doc.byline.as_deref(), Some("Jane Doe"));
    assert_eq!(doc.published.as_deref(), Some("2024-05-01"));
    assert_eq!(doc.language.as_deref(), Some("en-GB"));
    assert_eq!(doc.site_name.as_deref(), Some("Example News"));
    assert_eq!(doc.description.as_deref(), Some("A story about things."));
    assert_eq!(
        doc.canonical_url.as_deref(),
        Some("https://news.example.com/2024/05/01/story.html")
    );
    assert_eq!(doc.page_type, PageType::Article);
    assert_eq!(doc.json_ld.len(), 1);
    assert_eq!(doc.json_ld[0]["headline"], "LD headline");
    assert!(doc.word_count > 40, "{}", doc.word_count);
    assert!(doc.text.contains("Meta is discussed") && !doc.text.contains("**"));
}

#[test]
fn page_type_follows_json_ld_then_og_then_url() {
    let product = "<html><head><script type=\"application/ld+json\">{\"@graph\":[{\"@type\":\"Product\",\"name\":\"Widget\"}]}</script>\
                   <meta property=\"og:type\" content=\"article\"></head><body><p>A widget.</p><p>$12.99</p></body></html>";
    assert_eq!(html(product).page_type, PageType::Product);
    let og = "<html><head><meta property=\"og:type\" content=\"video.other\"></head><body><p>x</p></body></html>";
    assert_eq!(html(og).page_type, PageType::Video);
    let docs = extract(
        b"<p>x</p>",
        Some("text/html"),
        &Url::parse("https://docs.example.com/guide/install").unwrap(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_eq!(docs.page_type, PageType::Documentation);
}

#[test]
fn windows_1251_page_with_only_meta_charset_decodes() {
    let text = "<html><head><meta charset=\"windows-1251\"><title>Новости</title></head><body><article><p>Съешь же ещё этих мягких французских булок, да выпей чаю. \
                Это длинный абзац русского текста, который должен прочитаться правильно, без кракозябр и вопросительных знаков.</p></article></body></html>";
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(text);
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the fixture really is windows-1251"
    );
    let doc = extract(
        &bytes,
        Some("text/html"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_eq!(doc.title.as_deref(), Some("Новости"));
    assert!(
        doc.markdown
            .contains("Съешь же ещё этих мягких французских булок"),
        "{}",
        doc.markdown
    );
    assert!(decode_html(&bytes, None).contains("Новости"));
}

/// A page whose template declares ISO-8859-1 before its own `<meta charset="utf-8">`, in
/// bytes that are UTF-8: read as declared, every curly quote came out as `â€™`.
#[test]
fn utf8_page_declaring_latin1_first_reads_as_utf8() {
    let page = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\
                <meta charset=\"utf-8\"><title>Caf\u{e9} hire</title></head><body><main><h1>Caf\u{e9} hire</h1>\
                <p>We\u{2019}ll bring the tables, the chairs and the coffee machine to your party, set them \
                up before your guests arrive and take them away again the morning after it is over.</p>\
                </main></body></html>";
    let doc = extract(
        page.as_bytes(),
        Some("text/html"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(
        doc.markdown.contains("We\u{2019}ll bring the tables"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains('\u{e2}'), "{}", doc.markdown);
}

#[test]
fn text_markdown_and_json_pass_through() {
    let doc = extract(
        b"just some text\nover lines",
        Some("text/plain"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_eq!(doc.markdown, "just some text\nover lines");
    assert_eq!(doc.word_count, 5);
    let doc = extract(
        b"# Title\n\nBody *md*.",
        Some("text/markdown; charset=utf-8"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_eq!(doc.title.as_deref(), Some("Title"));
    assert_eq!(doc.markdown, "# Title\n\nBody *md*.");
    let doc = extract(
        br#"{"a": [1, 2]}"#,
        Some("application/json"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(
        doc.markdown.starts_with("```json\n{\"a\": [1, 2]}\n```"),
        "{}",
        doc.markdown
    );
    assert_eq!(doc.page_type, PageType::Text);
}

#[test]
fn unsupported_types_are_refused() {
    for (bytes, ct) in [
        (&b"\x89PNG\r\n\x1a\n\0\0"[..], Some("image/png")),
        (b"PK\x03\x04\0\0\0", Some("application/zip")),
        (b"\0\x01\x02\x03\xff\xfe\0\0", None),
    ] {
        let err = extract(bytes, ct, &url(), &ExtractOptions::default()).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnsupportedContent, "{ct:?}");
    }
}

/// A one-page PDF with "Hello PDF world" in Helvetica, xref offsets computed.
fn tiny_pdf() -> Vec<u8> {
    let content = "BT /F1 24 Tf 72 720 Td (Hello PDF world) Tj ET";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_owned(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_owned(),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        pdf.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

#[test]
fn pdf_text_is_extracted() {
    let doc = extract(
        &tiny_pdf(),
        Some("application/pdf"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap();
    assert!(doc.text.contains("Hello PDF world"), "{:?}", doc.text);
    assert_eq!(doc.page_type, PageType::Pdf);
}

#[test]
fn broken_pdf_gives_a_clean_error() {
    let mut broken = tiny_pdf();
    broken.truncate(60);
    let err = extract(
        &broken,
        Some("application/pdf"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedContent);
    let err = extract(
        b"<html>not a pdf</html>",
        Some("application/pdf"),
        &url(),
        &ExtractOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedContent);
}

#[test]
fn forum_thread_keeps_all_posts() {
    let posts: String = (1..=6)
        .map(|i| format!("<div class=\"post\"><div class=\"post-author\"><a href=\"/u/{i}\">user{i}</a></div><div class=\"post-body\">{}</div></div>", para(&format!("Reply number {i}"))))
        .collect();
    let page = format!(
        "<html><body><nav><a href=\"/\">Forum home</a></nav><div class=\"thread\"><h1>Thread</h1>{posts}</div><aside><p>Sidebar text about other threads on this forum.</p></aside></body></html>"
    );
    let doc = extract(
        page.as_bytes(),
        Some("text/html"),
        &Url::parse("https://forum.example.com/t/some-thread/42").unwrap(),
        &ExtractOptions::default(),
    )
    .unwrap();
    for i in 1..=6 {
        assert!(
            doc.markdown
                .contains(&format!("Reply number {i} is discussed")),
            "post {i} missing:\n{}",
            doc.markdown
        );
    }
    assert!(!doc.markdown.contains("Sidebar text"));
    assert_eq!(doc.page_type, PageType::Forum);
}

#[test]
fn link_list_page_scores_low_quality() {
    let links: String = (0..40)
        .map(|i| format!("<li><a href=\"/p/{i}\">Link number {i}</a></li>"))
        .collect();
    let doc = html(&format!("<html><body><ul>{links}</ul></body></html>"));
    assert!(
        doc.quality_score < 0.5,
        "quality {} for a link list",
        doc.quality_score
    );
}

// Robustness: each must simply finish without panicking.

#[test]
fn deeply_nested_input_finishes() {
    let page = "<div>".repeat(100_000) + "text at the bottom" + &"</div>".repeat(100_000);
    let doc = html(&page);
    assert!(doc.text.contains("text at the bottom"));
    let page = "<b><i>".repeat(50_000) + "x";
    html(&page);
    let page = "<table><tr><td>".repeat(30_000);
    html(&page);
    let page = "<ul><li>".repeat(50_000) + "deep item";
    html(&page);
}

#[test]
fn fifty_megabytes_finishes() {
    let chunk = format!(
        "<div class=\"c\">{}<a href=\"/x\">link</a></div>\n",
        para("Bulk")
    );
    let page = chunk.repeat(50 * 1024 * 1024 / chunk.len());
    let doc = html(&page);
    assert!(doc.word_count > 1000);
}

#[test]
fn binary_garbage_and_unclosed_tags_finish() {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let garbage: Vec<u8> = (0..1_000_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    // Garbage is refused or read as a page; either way it ends, and what it gives is
    // valid Markdown text, never the raw control bytes.
    for typed in [Some("text/html"), None] {
        if let Ok(doc) = extract(&garbage, typed, &url(), &ExtractOptions::default()) {
            assert!(!doc.markdown.contains('\0'), "a NUL byte in the Markdown");
        }
    }
    let tagsoup = "<p><b><a href=x><div><table><td><li><pre><code class='language-".repeat(20_000);
    let soup = html(&tagsoup);
    assert!(
        soup.word_count < 1_000,
        "{} words from tags alone",
        soup.word_count
    );
    assert!(
        !html("<!-- never closed <p>text")
            .markdown
            .contains("never closed")
    );
    assert!(
        !html("<script>never closed")
            .markdown
            .contains("never closed")
    );
    let _ = html("<a href=\"unterminated attribute value");
    let entities = html("<p>&#xFFFFFFFF; &#0; &#55296; &amp; end</p>").markdown;
    assert!(entities.contains("end"), "{entities}");
    assert!(!entities.contains('\0'), "{entities:?}");
}

#[test]
fn huge_tables_finish() {
    let rows: String = (0..20_000)
        .map(|i| format!("<tr><td>{i}</td><td>value {i}</td><td>more</td></tr>"))
        .collect();
    let doc = html(&format!(
        "<table><tr><th>n</th><th>v</th><th>m</th></tr>{rows}</table>"
    ));
    assert!(
        doc.markdown.contains("| 19999 | value 19999 | more |"),
        "{}",
        &doc.markdown[..200.min(doc.markdown.len())]
    );
    let wide: String = (0..100_000)
        .map(|i| format!("<td colspan=1000>{i}</td>"))
        .collect();
    html(&format!(
        "<table><tr>{wide}</tr><tr><td>a</td></tr></table>"
    ));
}

// Real pages from the shared benchmark, read in place (never copied into the repo).

fn bench_page(id: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/bench/extract/dev/html")
        .join(format!("{id}.html.gz"));
    let gz = std::fs::read(path).ok()?;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}

#[test]
fn real_news_page_extracts_the_article() {
    let Some(page) = bench_page("042bb7b5fedab6eac7db576522b89b93904c237d344bcbe14a6a5ab7f7335856")
    else {
        // Under CI the data beside the repository must be there: a skip would pass silently.
        assert!(
            !trawl_testkit::in_ci(),
            "../shared/bench/extract/dev is missing; under CI this test is not skipped"
        );
        eprintln!("shared benchmark not found; skipping");
        return;
    };
    let url = Url::parse("https://www.wsj.com/articles/google-stadia-microsoft-xcloud-apple-arcade-so-many-ways-to-playand-pay-11574168580").unwrap();
    let doc = extract(&page, Some("text/html"), &url, &ExtractOptions::default()).unwrap();
    assert!(
        doc.markdown.contains("Gaming used to be so simple."),
        "{}",
        doc.markdown
    );
    assert!(doc.title.is_some());
    assert!(doc.quality_score >= 0.5, "{}", doc.quality_score);
}

// Non-article pages written for these tests (tests/pages/): docs, product, listing.

fn own_page(name: &str, url: &str) -> trawl_core::Document {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pages")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    extract(
        &bytes,
        Some("text/html"),
        &Url::parse(url).unwrap(),
        &ExtractOptions::default(),
    )
    .unwrap()
}

#[test]
fn docs_page_keeps_code_tables_and_drops_navigation() {
    let doc = own_page(
        "docs.html",
        "https://widgetlib.example.org/en/latest/install.html",
    );
    let md = &doc.markdown;
    assert!(
        md.contains("```console\n$ pip install widgetlib\n```"),
        "{md}"
    );
    assert!(
        md.contains("```python\nimport widgetlib\nprint(widgetlib.__version__)\n```"),
        "{md}"
    );
    assert!(
        md.contains("| Option | Default | Meaning |\n| --- | --- | --- |\n| `--user` | off |"),
        "{md}"
    );
    assert!(
        md.contains("## Options\n"),
        "permalink markers are dropped: {md}"
    );
    assert!(
        md.contains("[Quickstart](https://widgetlib.example.org/en/latest/quickstart.html)"),
        "{md}"
    );
    for junk in ["API reference", "Copyright", "Next", "Docs »"] {
        assert!(!md.contains(junk), "{junk:?} should be dropped:\n{md}");
    }
    assert_eq!(doc.page_type, PageType::Documentation);
}

#[test]
fn product_page_keeps_description_and_specs() {
    let doc = own_page("product.html", "https://shop.example.com/p/trail-runner-3");
    let md = &doc.markdown;
    assert!(md.contains("$129.00"), "{md}");
    assert!(md.contains("lugged outsole grips wet stone"), "{md}");
    assert!(md.contains("| Outsole | Vibram Megagrip |"), "{md}");
    // The product's name heads its description: kept, though it is also the title.
    assert!(md.contains("# Trail Runner 3\n"), "{md}");
    for junk in [
        "Add to cart",
        "We use cookies",
        "Road Runner 5",
        "Terms",
        "Sale",
    ] {
        assert!(!md.contains(junk), "{junk:?} should be dropped:\n{md}");
    }
    assert_eq!(doc.page_type, PageType::Product);
    assert!(doc.quality_score >= 0.5, "{}", doc.quality_score);
}

#[test]
fn listing_page_keeps_every_item() {
    let doc = own_page("listing.html", "https://blog.example.com/");
    let md = &doc.markdown;
    for item in [
        "Measuring coffee extraction at home",
        "A week with a manual grinder",
        "Water chemistry for beginners",
    ] {
        assert!(md.contains(item), "{item:?} missing:\n{md}");
    }
    assert!(
        md.contains("[Water chemistry for beginners](https://blog.example.com/2024/04/third)"),
        "{md}"
    );
    assert!(!md.contains("Categories") && !md.contains("About"), "{md}");
}

#[test]
fn runs_of_link_only_paragraphs_are_dropped_but_a_lone_link_paragraph_stays() {
    let inner = format!(
        "{}{}<p><a href=\"/report.pdf\">The full report</a></p>{}\
         <p>More from us:</p><p><a href=\"/x\">Other story one</a></p><p><a href=\"/y\">Other story two</a></p><p><a href=\"/z\">Other story three</a></p>",
        para("Alpha"),
        para("Beta"),
        para("Gamma"),
    );
    let doc = html(&format!(
        "<html><body><article>{inner}</article></body></html>"
    ));
    let md = &doc.markdown;
    assert!(
        md.contains("[The full report](https://news.example.com/report.pdf)"),
        "{md}"
    );
    for junk in ["Other story one", "Other story three", "More from us"] {
        assert!(!md.contains(junk), "{junk:?} should be dropped:\n{md}");
    }
}

#[test]
fn landing_page_keeps_every_headline_section() {
    let doc = own_page("landing.html", "https://harborbooks.example.com/");
    let md = &doc.markdown;
    for kept in [
        "closes your books every month",
        "## Monthly bookkeeping",
        "reconcile every bank and card account",
        "## Payroll without surprises",
        "named payroll specialist",
        "## Ready for tax season",
        "year-end package is prepared",
    ] {
        assert!(md.contains(kept), "{kept:?} missing:\n{md}");
    }
    for junk in [
        "We use cookies",
        "About us",
        "Latest from the blog",
        "Five receipts",
        "All rights reserved",
        "Privacy policy",
    ] {
        assert!(!md.contains(junk), "{junk:?} should be dropped:\n{md}");
    }
    assert_eq!(doc.page_type, PageType::Service);
}

#[test]
fn forum_thread_page_keeps_every_post_in_order_with_its_author() {
    let doc = own_page(
        "thread.html",
        "https://forum.example.net/t/kiln-temperature-drift/311",
    );
    let md = &doc.markdown;
    let mut last = 0;
    for kept in [
        "potter_jo",
        "my kiln reads 40 degrees low",
        "glazeguy",
        "thermocouple ages",
        "potter_jo",
        "replaced the thermocouple",
        "kilnwright",
        "witness cones",
    ] {
        let at = md[last..]
            .find(kept)
            .unwrap_or_else(|| panic!("{kept:?} missing or out of order:\n{md}"));
        last += at;
    }
    for junk in [
        "Suggested topics",
        "Glaze crawling on bisque",
        "Log in",
        "Powered by",
    ] {
        assert!(!md.contains(junk), "{junk:?} should be dropped:\n{md}");
    }
    assert_eq!(doc.page_type, PageType::Forum);
}

#[test]
fn ruby_keeps_base_characters_and_soft_hyphens_go() {
    let page = format!(
        "<html><body><article><p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp>供<rt>ども</rt></ruby>たちは、\
         Donau&shy;dampf\u{ad}schiff&shy;fahrt を見ました。</p>{}</article></body></html>",
        para("Ruby")
    );
    let doc = html(&page);
    assert!(doc.markdown.contains("子供たちは"), "{}", doc.markdown);
    assert!(
        doc.markdown.contains("Donaudampfschifffahrt"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains('こ') && !doc.markdown.contains("ども"));
    assert!(!doc.markdown.contains('\u{ad}'));
}

#[test]
fn hidden_tab_panels_are_kept_and_a_page_hidden_whole_is_shown() {
    // Code in each language sits in its own tab panel; only one is shown at a time.
    let tabs = format!(
        r#"<html><body><nav><a href="/">Home</a></nav><main><h1>Send a message</h1>{}
        <div role="tabpanel"><pre><code>client.send("python panel")</code></pre></div>
        <div role="tabpanel" hidden><pre><code>client.send("node panel")</code></pre></div>
        <div class="menu" hidden><a href="/x">Hidden menu entry</a></div>
        </main></body></html>"#,
        para("Messaging")
    );
    let doc = html(&tabs);
    assert!(doc.markdown.contains("python panel"), "{}", doc.markdown);
    assert!(doc.markdown.contains("node panel"), "{}", doc.markdown);
    assert!(
        !doc.markdown.contains("Hidden menu entry"),
        "{}",
        doc.markdown
    );

    // Everything that reads as content is hidden until a script runs: it is shown rather
    // than returning nothing.
    let hidden = format!(
        r#"<html><body><nav><a href="/">Home</a></nav>
        <div class="defer-block" style="display:none"><article>{}{}</article></div>
        <footer><p>Copyright.</p></footer></body></html>"#,
        para("Almond thins"),
        para("Baking")
    );
    let doc = html(&hidden);
    assert!(
        doc.markdown.contains("Almond thins is discussed"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("Copyright"), "{}", doc.markdown);
}

#[test]
fn paragraphs_in_a_box_named_like_boilerplate_are_kept() {
    // Page builders name layout boxes with words that also name boilerplate.
    let page = format!(
        r#"<html><body><nav><a href="/">Home</a></nav><main>
        <div class="widget-span widget-type-rich_text">{}{}{}{}</div>
        <div class="et_pb_blurb et_pb_blurb_position_top">{}{}{}{}</div>
        <div class="sidebar"><p><a href="/a">A link in the sidebar</a></p></div>
        </main></body></html>"#,
        para("Portfolios"),
        para("Trust"),
        para("Design"),
        para("Process"),
        para("Calls to action"),
        para("Case studies"),
        para("Pricing"),
        para("Support")
    );
    // A service page, made of sections (an article would keep the best block only).
    let doc = extract(
        page.as_bytes(),
        Some("text/html"),
        &Url::parse("https://agency.example.com/services/web-design").unwrap(),
        &ExtractOptions::default(),
    )
    .expect("extract");
    for topic in ["Portfolios", "Design", "Calls to action", "Case studies"] {
        assert!(
            doc.markdown.contains(&format!("{topic} is discussed")),
            "{topic}: {}",
            doc.markdown
        );
    }
    assert!(
        !doc.markdown.contains("A link in the sidebar"),
        "{}",
        doc.markdown
    );
}

#[test]
fn a_story_page_whose_replies_hold_the_text_is_read_as_a_thread() {
    // A link aggregator's story: one line of its own, the discussion below it.
    let page = format!(
        r#"<html><head><title>Project goals</title></head><body><nav><a href="/">Home</a></nav>
        <div class="story"><a href="https://example.org/goals">Project goals for the year</a>
        <span>via <a href="/~ana">ana</a> 2 hours ago</span></div>
        <div class="comments"><div class="comment"><a href="/~bo">bo</a>{}</div>
        <div class="comment"><a href="/~cy">cy</a>{}</div>
        <div class="comment"><a href="/~di">di</a>{}</div></div>
        <footer><p>About this site.</p></footer></body></html>"#,
        para("Ergonomic reference counting"),
        para("Lightweight clones"),
        para("Async tasks")
    );
    let doc = html(&page);
    for topic in [
        "Ergonomic reference counting",
        "Lightweight clones",
        "Async tasks",
    ] {
        assert!(
            doc.markdown.contains(&format!("{topic} is discussed")),
            "{topic}: {}",
            doc.markdown
        );
    }
    assert!(
        !doc.markdown.contains("About this site"),
        "{}",
        doc.markdown
    );
}

#[test]
fn a_river_of_story_cards_keeps_each_cards_header_and_link_text() {
    // A topic page: each story is an <article> whose <header> holds its title and summary,
    // and whose summary link is hidden from screen readers only.
    let card = |n: usize| {
        format!(
            r#"<article class="river-article"><header><h2><a href="/s{n}">Story number {n} headline</a></h2>
            <a href="/s{n}" aria-hidden="true"><p>Summary {n} of this story, which tells the reader what happened, who was there, and why it matters.</p></a>
            </header></article>"#
        )
    };
    let page = format!(
        r#"<html><body><header><nav><a href="/">Home</a><a href="/topics">Topics</a></nav></header>
        <main><h1>Headphones</h1>{}{}{}{}</main><footer><p>Copyright.</p></footer></body></html>"#,
        card(1),
        card(2),
        card(3),
        card(4)
    );
    let doc = extract(
        page.as_bytes(),
        Some("text/html"),
        &Url::parse("https://news.example.com/topic/headphones").unwrap(),
        &ExtractOptions::default(),
    )
    .expect("extract");
    for n in 1..=4 {
        assert!(
            doc.markdown.contains(&format!("Summary {n} of this story")),
            "{n}: {}",
            doc.markdown
        );
    }
    assert!(!doc.markdown.contains("Copyright"), "{}", doc.markdown);
    assert!(!doc.markdown.contains("Topics"), "{}", doc.markdown);
}

#[test]
fn a_menu_button_missing_its_closing_bracket_does_not_swallow_the_article() {
    // The `>` of the third button is missing, so its `</button>` ends the start tag instead
    // and the button stays open; the next `<button>` must close it, as in a browser.
    let nav = r#"<nav class="mega-nav"><ul>
        <li><button type="button" class="nav-link">Services</button><div><ul><li><a href="/a">Dental care</a></li></ul></div></li>
        <li><button type="button" class="nav-link">About</button><div><ul><li><a href="/b">Press</a></li></ul></div></li>
        <li><button type="button" class="nav-link"
            Shop </button><div><ul><li><button class="back">Main menu</button></li><li><a href="/c">Food</a></li></ul></div></li>
        </ul></nav>"#;
    let body: String = [
        "House training",
        "Crate training",
        "Socialization",
        "Leash walking",
    ]
    .iter()
    .map(|t| para(t))
    .collect();
    let doc = html(&format!(
        "<!doctype html><html><head><title>Puppy training basics | Pet Clinic</title></head>\
         <body><header>{nav}</header><main><h1>Puppy training basics</h1>{body}</main></body></html>"
    ));
    assert!(
        doc.markdown.contains("Crate training is discussed"),
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown.contains("Leash walking is discussed"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("Dental care"), "{}", doc.markdown);
}

#[test]
fn folded_answers_inside_the_content_are_shown_but_hidden_dialogs_are_not() {
    let answer = |q: &str| {
        format!(
            "<div class=\"faq-item\"><button class=\"faq-question\">{q}?</button>\
             <div class=\"faq-answer\" style=\"display: none\"><p>{q} is answered here in full: \
             the steps, the costs, how long it takes and what to ask before you sign anything \
             with a contractor or a supplier, and which documents to keep once it is done.</p></div></div>"
        )
    };
    let body: String = ["Intro", "Background"].iter().map(|t| para(t)).collect();
    let faq: String = ["How long does installation take", "What does a permit cost"]
        .iter()
        .map(|q| answer(q))
        .collect();
    let doc = html(&format!(
        "<!doctype html><html><head><title>Installing solar panels | Sunny</title></head><body>\
         <main><h1>Installing solar panels</h1>{body}<h2>Questions</h2><div class=\"faq\">{faq}</div>\
         <hr><div id=\"policy-text\" style=\"display:none\"><p>Our pricing policy template text is \
         shown by a script in a popup when a visitor asks for a quote on a restricted item, never \
         inline with the article itself.</p></div>\
         <p class=\"signin\">Sign in</p><div style=\"display:none\"><form><p>Welcome back! Enter \
         your password below to sign in and keep your saved quotes on this device for later.</p>\
         <input type=\"password\"></form></div></main></body></html>"
    ));
    assert!(
        doc.markdown.contains("Background is discussed"),
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown
            .contains("What does a permit cost is answered here"),
        "{}",
        doc.markdown
    );
    assert!(
        !doc.markdown.contains("pricing policy template"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("Welcome back"), "{}", doc.markdown);
}

#[test]
fn a_page_builder_box_named_for_its_position_keeps_its_paragraph() {
    // `…_position_top` places the box; `top` there is a side, not a "back to top" link.
    let blurb = |t: &str| {
        format!(
            "<div class=\"pb_module pb_blurb pb_blurb_position_top\"><div class=\"pb_blurb_content\">\
             <h2>{t}</h2><p>{t} matters because a portfolio site is the first thing a client \
             sees: it shows the work, explains the process, names the results and makes the next \
             step, a call or a message, easy to take from any page of the site, on any screen, \
             at any hour, without a hunt through menus or a form that asks for too much.</p></div></div>"
        )
    };
    let body: String = ["Case studies", "Process", "Results"]
        .iter()
        .map(|t| blurb(t))
        .collect();
    let intro: String = ["Intro", "Background", "Scope"]
        .iter()
        .map(|t| para(t))
        .collect();
    let doc = html(&article_page(&format!("<h1>Story title</h1>{intro}{body}")));
    assert!(
        doc.markdown.contains("Process matters because"),
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown.contains("Results matters because"),
        "{}",
        doc.markdown
    );
    assert!(
        !doc.markdown.contains("Share on Twitter"),
        "{}",
        doc.markdown
    );
}

#[test]
fn a_huge_archive_of_links_beside_a_post_does_not_trigger_the_whole_page_fallback() {
    // The archive outweighs the post in characters, but it is all links: the post is still
    // most of the page's prose, so the reader keeps the post alone.
    let months: String = (1..=400)
        .map(|i| format!("<li><a href=\"/blog/{i}\">An older post about wine, number {i}</a></li>"))
        .collect();
    let body: String = [
        "Still wines",
        "Sparkling wines",
        "Fortified wines",
        "Sweet wines",
    ]
    .iter()
    .map(|t| para(t))
    .collect();
    let doc = html(&format!(
        "<!doctype html><html><head><title>A guide to wine types | Wine School</title></head><body>\
         <div class=\"blog\"><section class=\"post-col\"><article><h1>A guide to wine types</h1>{body}\
         </article></section><aside class=\"right-col\"><h2>Archive</h2><ul>{months}</ul></aside></div>\
         </body></html>"
    ));
    assert!(
        doc.markdown.contains("Fortified wines is discussed"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("number 17"), "{}", doc.markdown);
}

#[test]
fn a_stray_cdata_opener_in_html_does_not_turn_the_page_into_text() {
    // Outside <svg>/<math>, `<![CDATA[` is a bogus comment ending at the next `>`.
    let body: String = ["The first post", "A reply", "Another reply"]
        .iter()
        .map(|t| para(t))
        .collect();
    let doc = html(&format!(
        "<!doctype html><html><head><title>Thread | Forum</title></head><body><![CDATA[\n\
         <div id=\"top\"></div><main><h1>Thread</h1>{body}</main>\
         <svg><style><![CDATA[ .a > .b {{ fill: red }} ]]></style></svg></body></html>"
    ));
    assert!(
        doc.markdown.contains("A reply is discussed"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("<div"), "{}", doc.markdown);
    assert!(!doc.markdown.contains("fill: red"), "{}", doc.markdown);
}

#[test]
fn an_index_page_keeps_its_lists_of_links() {
    // On a listing the links are the items: link density does not prune them.
    let section = |letter: char| {
        let items: String = (1..=8)
            .map(|i| format!("<li><a href=\"/wiki/{letter}{i}\">{letter}-lang {i}</a></li>"))
            .collect();
        format!("<h2>{letter}</h2><ul>{items}</ul>")
    };
    let sections: String = ['C', 'E'].into_iter().map(section).collect();
    let intro: String = [
        "This index",
        "Scope",
        "Dialects",
        "Sources",
        "Naming",
        "History",
    ]
    .iter()
    .map(|t| para(t))
    .collect();
    let page = format!(
        "<!doctype html><html><head><title>List of languages | Wiki</title></head><body>\
         <nav><a href=\"/\">Main page</a> <a href=\"/random\">Random article</a></nav>\
         <main><h1>List of languages</h1>{intro}{sections}</main></body></html>"
    );
    let doc = extract(
        page.as_bytes(),
        Some("text/html; charset=utf-8"),
        &Url::parse("https://wiki.example/list/languages").unwrap(),
        &ExtractOptions::default(),
    )
    .expect("extract");
    assert_eq!(doc.page_type, PageType::Listing);
    assert!(doc.markdown.contains("C-lang 5"), "{}", doc.markdown);
    assert!(doc.markdown.contains("E-lang 8"), "{}", doc.markdown);
    assert!(!doc.markdown.contains("Random article"), "{}", doc.markdown);
}
