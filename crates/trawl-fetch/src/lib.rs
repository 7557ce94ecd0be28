//! trawl-fetch: fetches a URL safely.
