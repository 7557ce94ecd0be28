//! hackernews: parser and request-builder tests.

use super::*;

// No saved HN Algolia response exists (ENGINES.md §8): documented shape.
#[test]
fn documented_shape_parses() {
    let body = br#"{"hits":[
      {"objectID":"1","title":"Show HN: X","url":"","author":"a","points":10,"num_comments":2,"story_text":"<p>Hi &amp; bye</p>","created_at":"2026-01-01T00:00:00Z","_tags":["story"]},
      {"objectID":"2","title":"Y","url":"https://y.example/","author":"b","points":5,"num_comments":0,"created_at":"2026-01-02T00:00:00Z"}],
      "nbHits":2,"page":0,"nbPages":1,"hitsPerPage":10,"query":"x","params":"query=x"}"#;
    let items = parse(body).unwrap();
    assert_eq!(items[0].url, "https://news.ycombinator.com/item?id=1");
    assert_eq!(items[0].snippet, "Hi & bye");
    assert_eq!(items[1].url, "https://y.example/");
    assert_eq!(items[1].extra.as_ref().unwrap()["points"], 5);
}

/// HN's `story_text` separates paragraphs with `<p>` alone: the words on either side
/// must not run together.
#[test]
fn paragraphs_are_joined_with_a_space() {
    let body = br#"{"hits":[{"objectID":"7","title":"Ask HN: Y","url":null,"story_text":"I built this using Claude AI.<p>The problem is <i>scale</i>.<p>Thoughts?","_tags":["story"]}]}"#;
    let items = parse(body).unwrap();
    assert_eq!(
        items[0].snippet,
        "I built this using Claude AI. The problem is scale. Thoughts?"
    );
}
