//! trawl-search: one query fanned out to many engines, fused with correlation-aware
//! reciprocal rank fusion, every hit keeping its provenance.
