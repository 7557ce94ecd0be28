//! A crawl's store calls, committed together: one task takes the calls in the order they
//! were made and runs what has gathered while the last batch was written as one
//! [`Store::batch`] (one SQLite transaction). Each page of a crawl writes five or six
//! times (its row `fetching`, its links' rows, its notes, the document with its passages
//! and index, its row `done`); committed one by one, those writes were what bounded a
//! crawl's pace, on the store's one writer. A call still returns once its own write is
//! committed, so what the crawl tells the store holds as before; and since one task runs
//! them all in order, a read sees every write asked for before it.

use tokio::sync::{mpsc, oneshot};
use trawl_store::{BatchJob, SharedStore, Store};

type Job = Box<dyn FnOnce(&dyn Store) -> trawl_store::Result<()> + Send>;

struct Queued {
    job: Job,
    /// Who waits for the answer; `None` for [`Committer::queue`]'s calls, whose error is
    /// kept in [`Committer::failure`].
    done: Option<oneshot::Sender<trawl_store::Result<()>>>,
}

/// Most calls in one batch: a bound on one transaction's size and on the wait of the
/// first call in it.
const MOST_A_BATCH: usize = 64;

/// The sending end; the task ends when every clone is dropped.
#[derive(Clone, Debug)]
pub(crate) struct Committer {
    calls: mpsc::UnboundedSender<Queued>,
    /// The first error of a call nobody waits for ([`Committer::queue`]).
    failed: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

impl std::fmt::Debug for Queued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Queued")
    }
}

fn stopped() -> trawl_store::Error {
    trawl_store::Error::Backend("the crawl's store writer stopped".into())
}

impl Committer {
    /// Starts the task (on the current tokio runtime).
    pub(crate) fn start(store: SharedStore) -> Self {
        let (calls, mut queue) = mpsc::unbounded_channel::<Queued>();
        let failed: std::sync::Arc<std::sync::Mutex<Option<String>>> = Default::default();
        let failures = failed.clone();
        let answer = move |done: Option<oneshot::Sender<_>>, result: trawl_store::Result<()>| match (
            done, result,
        ) {
            (Some(d), r) => {
                let _ = d.send(r);
            }
            (None, Err(e)) => {
                let mut f = crate::lock::lock(&failures);
                f.get_or_insert(e.to_string());
            }
            (None, Ok(())) => {}
        };
        tokio::spawn(async move {
            while let Some(first) = queue.recv().await {
                let mut batch = vec![first];
                while batch.len() < MOST_A_BATCH {
                    match queue.try_recv() {
                        Ok(q) => batch.push(q),
                        Err(_) => break,
                    }
                }
                let (jobs, done): (Vec<Job>, Vec<_>) =
                    batch.into_iter().map(|q| (q.job, q.done)).unzip();
                let results = store
                    .run(move |s| {
                        let bound: Vec<BatchJob<'_>> = jobs
                            .into_iter()
                            .map(|job| Box::new(move || job(s)) as BatchJob<'_>)
                            .collect();
                        Ok(s.batch(bound))
                    })
                    .await;
                match results {
                    Ok(results) => {
                        for (d, r) in done.into_iter().zip(results) {
                            answer(d, r);
                        }
                    }
                    Err(e) => {
                        for d in done {
                            let e = format!("batch not written: {e}");
                            answer(d, Err(trawl_store::Error::Backend(e.into())));
                        }
                    }
                }
            }
        });
        Committer { calls, failed }
    }

    /// Runs `f` in a batch; the answer comes once that batch is committed. The call is
    /// queued when `run` is called (not when the future is first polled), so calls run in
    /// the order they were made.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn Store) -> trawl_store::Result<T> + Send + 'static,
    ) -> impl std::future::Future<Output = trawl_store::Result<T>> + Send + 'static {
        let (value_tx, mut value_rx) = oneshot::channel();
        let (done, committed) = oneshot::channel();
        let job: Job = Box::new(move |s| {
            let _ = value_tx.send(f(s)?);
            Ok(())
        });
        let queued = self
            .calls
            .send(Queued {
                job,
                done: Some(done),
            })
            .map_err(|_| stopped());
        async move {
            queued?;
            committed.await.map_err(|_| stopped())??;
            value_rx.try_recv().map_err(|_| stopped())
        }
    }
}

impl Committer {
    /// Queues `f` without waiting for it: the writes that need not hold up the crawl (a
    /// row `fetching` before its request, a page's links' rows), which later calls, queued
    /// after them, still find written. An error is kept for [`Committer::failure`].
    pub(crate) fn queue(
        &self,
        f: impl FnOnce(&dyn Store) -> trawl_store::Result<()> + Send + 'static,
    ) {
        let queued = self.calls.send(Queued {
            job: Box::new(f),
            done: None,
        });
        if queued.is_err() {
            self.fail(stopped().to_string());
        }
    }

    fn fail(&self, message: String) {
        let mut failed = crate::lock::lock(&self.failed);
        failed.get_or_insert(message);
    }

    /// The first error of a queued call, if one failed.
    pub(crate) fn failure(&self) -> Option<String> {
        crate::lock::lock(&self.failed).clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::SystemTime;

    use trawl_core::Document;
    use trawl_store::{DocumentRecord, SqliteStore, StoreConfig};

    use super::*;

    fn record(n: usize) -> DocumentRecord {
        let url = format!("https://example.com/{n}");
        let document = Document {
            handle: format!("example.com~{n:012}"),
            url: url.clone(),
            final_url: url,
            markdown: format!("page {n}"),
            ..Document::default()
        };
        DocumentRecord::new(document, SystemTime::now())
    }

    /// Calls run in the order they were made, each caller gets its own answer (a failed
    /// call its error, the others unharmed), a read made after writes sees them, and a
    /// queued call's error is kept by the time a later call is answered.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_run_in_order_and_each_gets_its_answer() {
        let dir = tempfile::tempdir().unwrap();
        let store = SharedStore::new(
            SqliteStore::open(dir.path().join("c.db"), StoreConfig::default()).unwrap(),
        );
        let committer = Committer::start(store.clone());
        let order = Arc::new(Mutex::new(Vec::new()));
        let calls: Vec<_> = (0..200)
            .map(|i| {
                let order = order.clone();
                committer.run(move |s| {
                    order.lock().unwrap().push(i);
                    if i == 57 {
                        s.put_document(&record(i), &[])?;
                        return Err(trawl_store::Error::Backend("call 57 fails".into()));
                    }
                    s.put_document(&record(i), &[])?;
                    Ok(i * 2)
                })
            })
            .collect();
        committer.queue(|_| Err(trawl_store::Error::Backend("a queued call fails".into())));
        assert_eq!(committer.failure(), None, "not run yet");
        let read = committer.run(|s| {
            Ok((0..200)
                .filter(|i| s.get_document(record(*i).handle()).ok().flatten().is_some())
                .count())
        });
        for (i, call) in calls.into_iter().enumerate() {
            match call.await {
                Ok(v) => assert_eq!(v, i * 2),
                Err(e) => assert!(i == 57 && e.to_string().contains("57"), "{i}: {e}"),
            }
        }
        assert_eq!(read.await.unwrap(), 199, "every write but the failed one's");
        // Answered before the read that was queued after it.
        assert!(
            committer
                .failure()
                .is_some_and(|e| e.contains("queued call fails"))
        );
        assert_eq!(*order.lock().unwrap(), (0..200).collect::<Vec<_>>());
    }
}
