//! One page of a crawl, read as `read` reads it: the fetcher (guard on every hop, tiers
//! escalating on a challenge or an app shell), then extraction off the async workers, or
//! on the one worker of a crawl that extracts in place (HTML, PDF, text alike), then the
//! document and its passages into the store under its handle. HTML pages also give their
//! links. In a changes-crawl a page the old crawl stored is asked for conditionally, and a
//! 304 answers the stored copy (see `changes.rs`).

use std::time::SystemTime;

use trawl_core::{TrawlError, handle_for_url};
use trawl_extract::{ExtractOptions, extract_with_anchors};
use trawl_fetch::{Conditional, Fetcher, Tier};
use trawl_store::{DocumentRecord, Passage, SharedStore};
use trawl_text::{cpu, passages};
use url::Url;

use crate::changes::Previous;
use crate::committer::Committer;
use crate::journal::store_error;
use crate::links::{PageLinks, links_of};

/// A page fetched and extracted, not yet stored.
pub(crate) struct Read {
    pub(crate) final_url: Url,
    pub(crate) status: u16,
    pub(crate) record: DocumentRecord,
    pub(crate) links: PageLinks,
    /// Its main content's MinHash signature, for near-duplicate folding (`dedup.rs`).
    pub(crate) signature: Option<Box<trawl_text::neardup::Signature>>,
    /// A changes-crawl: what the old crawl stored of this page.
    pub(crate) previous: Option<Box<DocumentRecord>>,
    /// The origin answered 304: `record` is the stored copy, revalidated.
    pub(crate) not_modified: bool,
    /// Its passages as the store keeps them (none after a 304: the stored ones stand).
    pub(crate) passages: Vec<Passage>,
}

/// The largest body extracted on the async worker when a crawl extracts in place
/// ([`crate::Crawler::extracting_in_place`]): a few milliseconds of work at most, so
/// the worker's other fetches wait no longer than that; a larger page goes to a blocking
/// thread as always.
pub(crate) const IN_PLACE_MOST: usize = 512 * 1024;

/// Fetch and extract `url` (conditionally when `previous` has validators and links); the
/// caller holds the host's pass until this returns the response, which `on_answer` is told
/// about (the pass can be dropped then). `in_place`: extract here when the body is at most
/// [`IN_PLACE_MOST`] bytes.
pub(crate) async fn read(
    fetcher: &Fetcher,
    url: &Url,
    options: &ExtractOptions,
    previous: Option<Previous>,
    in_place: bool,
    on_answer: impl FnOnce(),
) -> Result<Read, TrawlError> {
    let conditional = previous
        .as_ref()
        .map_or_else(Conditional::default, Previous::conditional);
    let fetched = fetcher
        .fetch_from(url.as_str(), &conditional, Tier::Plain)
        .await;
    on_answer();
    let page = fetched?;
    if page.not_modified()
        && let Some(Previous {
            record: stored,
            links: Some(links),
        }) = previous
    {
        // Nothing to extract: the stored copy stands, with the new times and validators.
        let mut record = stored.clone();
        record.fetched_at = SystemTime::now();
        record.etag = page.etag.clone().or(record.etag);
        record.last_modified = page.last_modified.clone().or(record.last_modified);
        record.document.status = Some(304);
        return Ok(Read {
            final_url: Url::parse(&record.document.final_url).unwrap_or_else(|_| url.clone()),
            status: 304,
            record,
            links,
            signature: None,
            previous: Some(Box::new(stored)),
            not_modified: true,
            passages: Vec::new(),
        });
    }
    let (body, content_type, final_url) = (
        page.body.clone(),
        page.content_type.clone(),
        page.final_url.clone(),
    );
    let options = options.clone();
    let here = in_place && body.len() <= IN_PLACE_MOST;
    // One hop off the async workers for everything a page's text needs before the store:
    // its links, signature, content hash and passages (each hop is two thread wake-ups),
    // or none when the crawl extracts in place. A page folded as a duplicate is split for
    // nothing; splitting is a few percent of it.
    let work = move || {
        // One parse gives the content and the links (an HTML page's only).
        extract_with_anchors(&body, content_type.as_deref(), &final_url, &options).map(
            |(d, anchors)| {
                let links = anchors.map_or_else(PageLinks::default, |a| links_of(a, &final_url));
                let signature = crate::dedup::signature_of_markdown(&d.markdown, d.word_count);
                let passages = passages::for_store(d.title.as_deref(), &d.markdown);
                // The content hash is of the Markdown only: the fields set below leave it.
                let record = DocumentRecord::new(d, SystemTime::now());
                (record, links, signature, passages)
            },
        )
    };
    let (record, links, signature, passages) = if here { work() } else { cpu::run(work).await }?;
    let mut record: DocumentRecord = record;
    let doc = &mut record.document;
    doc.url = url.to_string();
    doc.final_url = page.final_url.to_string();
    doc.handle = handle_for_url(&page.final_url);
    doc.status = Some(page.status);
    doc.fetched_via = page.via;
    doc.content_type = page.content_type.clone();
    doc.attempts = page.attempts.clone();
    record.etag = page.etag.clone();
    record.last_modified = page.last_modified.clone();
    Ok(Read {
        final_url: page.final_url,
        status: page.status,
        record,
        links,
        signature,
        previous: previous.map(|p| Box::new(p.record)),
        not_modified: false,
        passages,
    })
}

/// How a page is kept.
pub(crate) enum Keep {
    /// Stored (new, or the same Markdown again).
    Store,
    /// Stored in place of this older copy, which is kept as a version first (as
    /// `read --changes` keeps it).
    Replace(Box<DocumentRecord>),
    /// A 304: the stored copy gets the new times and validators.
    Revalidate,
}

/// Keep `record` and its `passages` (made as the page was read, [`passages::for_store`]'s,
/// off the store's one writer, which bounds a crawl's pace; a revalidation writes none),
/// as a read keeps them, with `before` and `after` on the same blocking hop: `before` once
/// the older copy is kept as a version (it is given the number) and before the document is
/// written, `after` once it is (the crawl notes the page's change before, and marks the URL
/// done after: a crawl killed in between finds the document stored and its change noted).
/// Answers the version number.
pub(crate) async fn keep(
    store: &SharedStore,
    committer: Option<&Committer>,
    record: DocumentRecord,
    passages: Vec<Passage>,
    how: Keep,
    before: impl FnOnce(&dyn trawl_store::Store, Option<u32>) -> trawl_store::Result<()>
    + Send
    + 'static,
    after: impl FnOnce(&dyn trawl_store::Store) -> trawl_store::Result<()> + Send + 'static,
) -> Result<Option<u32>, TrawlError> {
    let call = move |s: &dyn trawl_store::Store| {
        let mut record = record;
        if let Keep::Revalidate = how {
            before(s, None)?;
            let revalidation = trawl_store::Revalidation {
                fetched_at: record.fetched_at,
                expires_at: None,
                etag: record.etag.clone(),
                last_modified: record.last_modified.clone(),
            };
            s.revalidate_document(record.handle(), &revalidation)?;
            return after(s).map(|()| None);
        }
        let kept = match (&how, s.versions()) {
            (Keep::Replace(previous), Some(v)) => Some(v.put_version(previous)?),
            _ => None,
        };
        before(s, kept)?;
        // The store keeps Markdown; plain text is derived on demand.
        record.document.text.clear();
        s.put_document(&record, &passages)?;
        after(s).map(|()| kept)
    };
    match committer {
        Some(c) => c.run(call).await,
        None => store.run(call).await,
    }
    .map_err(store_error)
}
