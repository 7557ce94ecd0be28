//! A page that was read but holds little: a stub, one built by script that no browser ran,
//! or one that asks to sign in without a form trawl could see (the form-shaped walls are
//! refused earlier, `trawl_sites::login_wall`). It is answered, with a note that says so in
//! the header, in `--json` attempts and in MCP `_meta`, on every site.

use trawl_core::{Attempt, Document};

/// Fewer words than this in the main content is a thin page.
pub const THIN_WORDS: usize = 50;

/// What a thin page says when it wants a sign-in: lower-case, matched in its text.
const SIGN_IN_WORDS: [&str; 10] = [
    "sign in to continue",
    "log in to continue",
    "login to continue",
    "sign in to view",
    "log in to view",
    "please sign in",
    "please log in",
    "you must be logged in",
    "you need to sign in",
    "members only",
];

/// The note for `doc` when it is thin: `login_wall` when its text asks to sign in, else
/// `thin`. A document that is not HTML (a PDF, a spreadsheet) is what it is and gets none.
pub fn note(doc: &Document) -> Option<Attempt> {
    if doc.word_count >= THIN_WORDS || !is_html(doc) {
        return None;
    }
    let text = doc.text.to_lowercase();
    if let Some(words) = SIGN_IN_WORDS.iter().find(|w| text.contains(*w)) {
        return Some(Attempt {
            reader: "extract".into(),
            outcome: "login_wall".into(),
            detail: Some(format!(
                "{} words, asking to sign in (\"{words}\"): the content is behind a login",
                doc.word_count
            )),
        });
    }
    Some(Attempt {
        reader: "extract".into(),
        outcome: "thin".into(),
        detail: Some(format!(
            "{} words: a stub, a page built by script, or one behind a login",
            doc.word_count
        )),
    })
}

/// The notes among `attempts`.
pub fn notes(attempts: &[Attempt]) -> impl Iterator<Item = &Attempt> {
    attempts
        .iter()
        .filter(|a| a.reader == "extract" && matches!(a.outcome.as_str(), "thin" | "login_wall"))
}

fn is_html(doc: &Document) -> bool {
    doc.content_type
        .as_deref()
        .is_none_or(|t| t.contains("html") || t.contains("xml") && t.contains("xhtml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        Document {
            word_count: text.split_whitespace().count(),
            text: text.to_owned(),
            content_type: Some("text/html; charset=utf-8".into()),
            ..Document::default()
        }
    }

    #[test]
    fn a_short_page_is_thin_and_one_asking_to_sign_in_is_a_login_wall() {
        assert_eq!(
            note(&doc("Welcome. Sign in to continue.")).unwrap().outcome,
            "login_wall"
        );
        assert_eq!(note(&doc("Coming soon.")).unwrap().outcome, "thin");
        assert!(note(&doc(&"word ".repeat(THIN_WORDS))).is_none());
        let pdf = Document {
            content_type: Some("application/pdf".into()),
            ..doc("Two words.")
        };
        assert!(note(&pdf).is_none());
    }
}
