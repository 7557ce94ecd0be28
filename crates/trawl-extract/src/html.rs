//! HTML bytes to a [`Document`]: decode and parse the page, read its metadata and page type,
//! run the selection passes (strict first, then looser) and the safety nets that follow
//! them (a thread in disguise, the broad selection, repeated blocks, the page's own
//! `articleBody`), then render the winner and score how likely it is the main content.

use trawl_core::{Document, PageType};
use url::Url;

use crate::content::{self, Pass, Selection};
use crate::markdown::{self, Mode};
use crate::{ExtractOptions, PageAnchors, boilerplate, charset, dom, metadata, page_type, parse};

/// A first pass that finds fewer visible characters than this is retried with looser
/// heuristics (the page may have named its content wrapper like boilerplate).
const MIN_CONTENT_CHARS: usize = 250;

/// The chosen block must hold at least NUM/DEN of the cleaned page's visible text, or the
/// cleaned page is taken instead.
const BROAD_RATIO: (usize, usize) = (1, 2);
const BROAD_RATIO_MANY_BLOCKS: (usize, usize) = (4, 5);

/// The page's own `articleBody` is taken when it is this many times longer than what was
/// found (the markup hid most of the body from the passes).
const ARTICLE_BODY_GAIN: usize = 2;

/// The pass that shows hidden nodes is taken when its text is this many times longer than
/// the visible passes' best.
const SHOWN_HIDDEN_GAIN: usize = 2;

/// Below this many visible characters of its own, a page may be a thread in disguise.
const THREAD_MAX_OWN_CHARS: usize = 250;
/// ... and is read as one when its replies hold this many times more.
const THREAD_GAIN: usize = 3;

/// What is counted of a text once per text: its visible characters, and whether it holds
/// whitespace other than ASCII's, which its word count asks too.
#[derive(Clone, Copy)]
struct Visible {
    chars: usize,
    other_space: bool,
}

/// Characters that are not whitespace (`char::is_whitespace`), counted on bytes: this runs
/// over every rendering of a page. Characters that are not ASCII whitespace are counted
/// eight bytes a step (see `dom::TextSize`); then the few non-ASCII spaces come off.
fn visible_chars(s: &str) -> Visible {
    let mut n = dom::TextSize::of(s).visible as usize;
    let other_space = dom::has_other_space(s);
    if other_space {
        for (i, b) in s.bytes().enumerate() {
            if dom::may_start_other_space(b) && s[i..].starts_with(char::is_whitespace) {
                n -= 1;
            }
        }
    }
    Visible {
        chars: n,
        other_space,
    }
}

pub(crate) fn extract_html(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    doc: &mut Document,
    mut anchors: Option<&mut Option<PageAnchors>>,
) {
    read_html(
        bytes,
        content_type,
        url,
        opts,
        doc,
        anchors.as_deref_mut(),
        false,
    );
    // A page that shows nothing until its scripts run may keep a copy for readers without
    // them: read it again as a browser with scripting off does.
    if doc.text.trim().is_empty() && memchr::memmem::find(bytes, b"<noscript").is_some() {
        read_html(bytes, content_type, url, opts, doc, anchors, true);
    }
}

fn read_html(
    bytes: &[u8],
    content_type: Option<&str>,
    url: &Url,
    opts: &ExtractOptions,
    doc: &mut Document,
    anchors: Option<&mut Option<PageAnchors>>,
    scripting_off: bool,
) {
    let html = charset::decode_html_borrowed(bytes, content_type);
    let dom = if scripting_off {
        parse::parse_scripting_off(&html)
    } else {
        parse::parse(&html)
    };
    drop(html);
    if let Some(anchors) = anchors {
        *anchors = Some(crate::anchors::of_dom(&dom));
    }
    let meta = metadata::collect(&dom, url);
    let base = meta.base.clone().unwrap_or_else(|| url.clone());

    let page_type = page_type::page_type(&meta, url, page_type::shape(&dom));
    // Strict first; each retry relaxes one heuristic, as readability does. Keep the pass
    // that found the most text if none reaches the minimum.
    let strict = strict_pass(page_type, opts);
    let passes = [
        strict,
        Pass {
            strip_unlikely: false,
            ..strict
        },
        Pass {
            strip_unlikely: false,
            weight_classes: false,
            ..strict
        },
        Pass {
            strip_unlikely: false,
            weight_classes: false,
            clean_conditionally: false,
            ..strict
        },
        Pass {
            show_hidden: true,
            ..strict
        },
    ];
    // The page's title opening the content is metadata, dropped from the text; but a
    // product's name heads what is said about the product (its name, price, description).
    let dropped_titles: &[String] = if page_type == PageType::Product {
        &[]
    } else {
        &meta.titles
    };
    let title_headings = content::TitleHeadings::new(&dom, dropped_titles);
    let mut drops = content::Drops::new(&dom);
    let mut signals = boilerplate::Signals::new(&dom, drops.hard_dropped());
    content::mark_folded(&dom, &mut signals);
    let mut best: Option<(Selection, String)> = None;
    // Passes share their boilerplate drops where they drop alike (`drops`); the strict
    // pass's serve the broad selection too.
    for pass in passes {
        let mut selection = content::select(
            &dom,
            pass,
            &signals,
            drops.get(&dom, pass, &signals),
            base.host_str(),
        );
        title_headings.drop_from(&dom, &mut selection);
        let text = markdown::render(
            &dom,
            &selection.dropped,
            &selection.roots,
            &base,
            Mode::Text,
        );
        let enough = text.len() >= MIN_CONTENT_CHARS;
        // Hidden nodes shown win only by far: a page that shows a line or two and hides
        // much more hides its body until a script runs, while a short page's hidden
        // templates and modals are not its text.
        let gain = if pass.show_hidden {
            SHOWN_HIDDEN_GAIN
        } else {
            1
        };
        if best
            .as_ref()
            .is_none_or(|(_, t)| text.len() > t.len() * gain)
        {
            best = Some((selection, text));
        }
        if enough {
            break;
        }
    }
    let (mut selection, mut text) = best.expect("at least one pass ran");
    // A page whose own text is a few lines and whose replies hold far more is a thread
    // (a link aggregator's story page): read it as one.
    // Counted once per text: it is read by each check below, the quality score and the word count.
    let mut text_visible = visible_chars(&text);
    let chosen = text_visible.chars;
    if !strict.thread && !opts.include_comments && chosen < THREAD_MAX_OWN_CHARS {
        let thread = Pass {
            thread: true,
            include_comments: true,
            ..strict
        };
        let mut replies = content::select(
            &dom,
            thread,
            &signals,
            drops.get(&dom, thread, &signals),
            base.host_str(),
        );
        title_headings.drop_from(&dom, &mut replies);
        let replies_text =
            markdown::render(&dom, &replies.dropped, &replies.roots, &base, Mode::Text);
        let replies_visible = visible_chars(&replies_text);
        if replies_visible.chars > chosen * THREAD_GAIN {
            selection = replies;
            text = replies_text;
            text_visible = replies_visible;
        }
    }
    // Recall safety net: when the chosen block holds little of what the page shows once
    // boilerplate is gone, the page is not one block of prose (a landing page, a listing,
    // a thread): take the whole cleaned page instead of betting on one block.
    // Pages made of many blocks (listings, shop grids, landing pages, product pages) need
    // less of a gap to be read whole.
    let many_blocks = matches!(
        page_type,
        PageType::Listing | PageType::Collection | PageType::Service | PageType::Product
    );
    let (num, den) = if many_blocks {
        BROAD_RATIO_MANY_BLOCKS
    } else {
        BROAD_RATIO
    };
    // On a page of prose, what the block may miss is prose: link text (a blog archive, a
    // rail of related posts) does not count. On a page of many blocks the links are items.
    let own = |chars: usize, link_density: f32| {
        if many_blocks {
            chars
        } else {
            (chars as f32 * (1.0 - link_density)) as usize
        }
    };
    // The broad selection holds at most the page's text after the strict drops: when the
    // chosen block already holds enough of that, the broad one cannot win.
    let chosen = own(text_visible.chars, selection.link_density);
    let strict_boiled = drops.get(&dom, strict, &signals);
    let page_stats = &strict_boiled.stats[0];
    let page_text = if many_blocks {
        page_stats.text
    } else {
        page_stats.text - page_stats.link
    } as usize;
    let broad = (chosen * den < page_text * num && !selection.in_dialog)
        .then(|| content::select_broad(&dom, strict_boiled));
    if let Some(mut broad) = broad {
        let broad_text = markdown::render(&dom, &broad.dropped, &broad.roots, &base, Mode::Text);
        let broad_visible = visible_chars(&broad_text);
        if chosen * den < own(broad_visible.chars, broad.link_density) * num {
            // Rendered again only if the title heading went from it.
            if title_headings.drop_from(&dom, &mut broad) {
                text = markdown::render(&dom, &broad.dropped, &broad.roots, &base, Mode::Text);
                text_visible = visible_chars(&text);
            } else {
                text = broad_text;
                text_visible = broad_visible;
            }
            selection = broad;
        }
    }
    // A product's page ships the panels a script fills (similar items, reviews) as a
    // heading over an empty box. (On a listing or a shop's grid, an empty heading is as
    // often an item's title.)
    let product = page_type == PageType::Product;
    let repeated = content::drop_repeated_blocks(&dom, &mut selection);
    // Before the empty sections: a heading over a "Loading…" box heads nothing.
    let placeholders = content::drop_placeholders(&dom, &mut selection);
    let emptied = product && content::drop_empty_sections(&dom, &mut selection);
    // "Back to top" after each section (see `content::jumps`).
    let jumps = content::drop_jump_links(&dom, &mut selection);
    // "You must log in to answer this question" (see `content::prompts`).
    let prompts = content::drop_sign_in_prompts(&dom, &mut selection);
    // "You are using an out of date browser" (see `content::notices`).
    let notices = content::drop_browser_notices(&dom, &mut selection);
    // A hub's cards: the links under each heading and sentence (see `content::hubs`).
    let hubs = content::drop_hub_link_lists(&dom, &mut selection);
    // The site's feed of embedded posts beside the content (see `content::embeds`).
    let feeds = content::drop_embedded_timelines(&dom, &mut selection);
    // A video player's controls and messages (see `content::players`).
    let players = content::drop_player_boxes(&dom, &mut selection);
    if repeated | placeholders | emptied | jumps | prompts | notices | hubs | feeds | players {
        text = markdown::render(
            &dom,
            &selection.dropped,
            &selection.roots,
            &base,
            Mode::Text,
        );
        text_visible = visible_chars(&text);
    }
    let mut markdown = markdown::render(
        &dom,
        &selection.dropped,
        &selection.roots,
        &base,
        Mode::Markdown,
    );
    let mut semantic = selection.semantic;
    let mut link_density = selection.link_density;

    // The page's own statement of its body, when what we found is much shorter.
    if let Some(body) = meta.article_body.as_deref()
        && body.len() > MIN_CONTENT_CHARS
        && text.len() * ARTICLE_BODY_GAIN < body.len()
    {
        text = body.trim().to_owned() + "\n";
        text_visible = visible_chars(&text);
        markdown = text.clone();
        semantic = true;
        link_density = 0.0;
    }

    doc.word_count = dom::word_count_knowing(&text, text_visible.other_space);
    doc.quality_score = quality(
        doc.word_count,
        text_visible.chars,
        selection.page_text as usize,
        link_density,
        semantic,
    );
    doc.page_type = page_type;
    doc.markdown = markdown;
    doc.text = text;
    doc.title = meta.title;
    doc.byline = meta.byline;
    doc.published = meta.published;
    doc.language = meta.language;
    doc.site_name = meta.site_name;
    doc.description = meta.description;
    doc.canonical_url = meta.canonical_url;
    doc.head = meta.head;
    doc.json_ld = meta.json_ld;
}

/// Text of this many words or more is as long as main content needs to be.
const FULL_LENGTH_WORDS: f32 = 200.0;
/// Text more than this share links is a link list...
const LINK_LIST_DENSITY: f32 = 0.5;
/// ... and scores at most this: below 0.5, "probably not the main content".
const LINK_LIST_MAX_QUALITY: f32 = 0.45;

/// How likely the extracted text is the page's main content, 0..1; below 0.5 means
/// "probably not". Long, link-poor text from a declared content container scores high; a
/// few words, a link list, or a sliver of a text-heavy page score low.
fn quality(
    words: usize,
    visible: usize,
    page_visible: usize,
    link_density: f32,
    semantic: bool,
) -> f32 {
    if words == 0 {
        return 0.0;
    }
    let length = (words as f32 / FULL_LENGTH_WORDS).min(1.0);
    let coverage = if page_visible == 0 {
        1.0
    } else {
        (visible as f32 / page_visible as f32).min(1.0)
    };
    let mut q = 0.1
        + 0.5 * length
        + 0.25 * (1.0 - link_density)
        + 0.1 * coverage.sqrt()
        + if semantic { 0.05 } else { 0.0 };
    if link_density > LINK_LIST_DENSITY {
        q = q.min(LINK_LIST_MAX_QUALITY);
    }
    q.clamp(0.0, 1.0)
}

/// The first, strictest pass for a page of `page_type`; the retries relax it.
pub(crate) fn strict_pass(page_type: PageType, opts: &ExtractOptions) -> Pass {
    Pass {
        strip_unlikely: true,
        weight_classes: true,
        clean_conditionally: true,
        include_comments: opts.include_comments,
        thread: page_type == PageType::Forum,
        show_hidden: false,
        // An article is one run of prose: its container also holds the teasers around it.
        widen: page_type != PageType::Article,
        // A reference page links every other word, and an index's items are links.
        link_tolerant: matches!(page_type, PageType::Documentation | PageType::Listing),
        listing: matches!(page_type, PageType::Listing | PageType::Collection),
        short_sections: page_type == PageType::Documentation,
        reviews_are_comments: !matches!(page_type, PageType::Article | PageType::Service),
        short_lines: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_chars_counts_what_char_is_whitespace_does_not() {
        let samples = [
            "",
            "plain words, with\ttabs\nand\r\nbreaks",
            "vertical\x0btab and form\x0cfeed",
            "no-break\u{a0}space, next-line\u{85}, ogham\u{1680}mark",
            "em\u{2003}space thin\u{2009}space narrow\u{202f}nbsp math\u{205f}space",
            "ideographic\u{3000}space 漢字 and line\u{2028}para\u{2029}seps",
            // Not whitespace, though they look like it or share a lead byte.
            "zero\u{200b}width joiner\u{200d} ¢ € ☃ ㄱ Ⴀ",
            "é ß ö \u{1f600}",
        ];
        for s in samples {
            let by_char = s.chars().filter(|c| !c.is_whitespace()).count();
            assert_eq!(visible_chars(s).chars, by_char, "{s:?}");
        }
    }

    #[test]
    fn quality_is_low_for_scraps_and_link_lists() {
        assert!(quality(600, 3000, 3500, 0.05, true) > 0.8);
        assert!(quality(20, 100, 5000, 0.0, false) < 0.5);
        assert!(quality(400, 2000, 2500, 0.8, false) < 0.5);
    }
}
