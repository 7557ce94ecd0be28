//! A page builder's own class names (issue 45). Elementor calls every block a widget
//! (`elementor-widget elementor-widget-heading`, wrapped in `elementor-widget-container`,
//! the column's in `elementor-widget-wrap`) and the outermost section and column `top`
//! (`elementor-top-section`): in its namespace those words name its wrappers, not a
//! sidebar's box or the top of the page. What a widget is, its kind (`nav-menu`,
//! `wp-widget-recent-posts`, `share-buttons`), is read as any class is.

/// Namespaces of page builders that name each of their blocks `<namespace>-widget`.
const NAMESPACES: &[&str] = &["elementor"];

/// Names (after `<namespace>-`) of the builder's layout wrappers.
const LAYOUT_WRAPPERS: &[&str] = &["top-section", "top-column", "inner-section", "inner-column"];

/// Words after `<namespace>-widget-` that name the builder's wrappers around a widget's
/// content, not a kind of widget.
const WIDGET_WRAPPERS: &[&str] = &["container", "wrap", "empty"];

/// Words of a widget's kind that, though no boilerplate word, name a block that lists
/// other pages or asks the reader for something: posts grids and loops (`posts`,
/// `uael-posts`, `loop-grid`, `jet-listing-grid`), portfolios, a site map, a cart, a form
/// (`form`, `gravity-forms`, `formidable`).
const LISTING_WORDS: &[&str] = &[
    "cart",
    "form",
    "formidable",
    "forms",
    "listing",
    "loop",
    "portfolio",
    "posts",
    "sitemap",
];

/// How a class token in a page builder's namespace reads.
pub(crate) enum BuilderClass<'t> {
    /// The builder's own wrapper (`elementor-widget-container`, `elementor-top-section`):
    /// no word of what it holds.
    Wrapper,
    /// A widget of a kind that lists other pages (see `LISTING_WORDS`).
    Listing,
    /// A widget of this kind (`heading`, `nav-menu`), to be read as a class token.
    Kind(&'t str),
}

/// `token` (lowercase) read as a page builder's class, or `None` when it is not a wrapper
/// or a widget of one.
pub(crate) fn builder_class(token: &str) -> Option<BuilderClass<'_>> {
    let rest = NAMESPACES
        .iter()
        .find_map(|ns| token.strip_prefix(ns)?.strip_prefix('-'))?;
    if LAYOUT_WRAPPERS.contains(&rest) {
        return Some(BuilderClass::Wrapper);
    }
    let widget = rest.strip_prefix("widget")?;
    // A modifier of the widget box (`elementor-widget__width-initial`) sizes or places it.
    if widget.is_empty() || widget.starts_with("__") || widget.starts_with("--") {
        return Some(BuilderClass::Wrapper);
    }
    let kind = widget.strip_prefix('-')?;
    Some(if WIDGET_WRAPPERS.contains(&kind) {
        BuilderClass::Wrapper
    } else if kind
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| LISTING_WORDS.contains(&w))
        || kind.contains("table-of-contents")
    {
        BuilderClass::Listing
    } else {
        BuilderClass::Kind(kind)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_kinds_and_other_tokens() {
        for t in [
            "elementor-widget",
            "elementor-widget-container",
            "elementor-widget-wrap",
            "elementor-top-section",
            "elementor-top-column",
            "elementor-widget__width-initial",
        ] {
            assert!(
                matches!(builder_class(t), Some(BuilderClass::Wrapper)),
                "{t}"
            );
        }
        for t in [
            "elementor-widget-posts",
            "elementor-widget-wp-widget-recent-posts",
            "elementor-widget-loop-grid",
            "elementor-widget-form",
        ] {
            assert!(
                matches!(builder_class(t), Some(BuilderClass::Listing)),
                "{t}"
            );
        }
        assert!(matches!(
            builder_class("elementor-widget-nav-menu"),
            Some(BuilderClass::Kind("nav-menu"))
        ));
        assert!(matches!(
            builder_class("elementor-widget-text-editor"),
            Some(BuilderClass::Kind("text-editor"))
        ));
        for t in [
            "widget",
            "sidebar-widget",
            "elementor-widgets",
            "elementor-element",
            "elementor-location-header",
            "elementor-nav-menu",
        ] {
            assert!(builder_class(t).is_none(), "{t}");
        }
    }
}
