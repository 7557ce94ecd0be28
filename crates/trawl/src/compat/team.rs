//! The account routes Firecrawl's SDKs and dashboards call: credit and token usage (a
//! self-hosted server has none: zeros, in each version's spelling), the queue status and
//! the concurrency check (what this server runs now). `params-preview` asks an LLM to turn
//! a prompt into crawl options: refused by name, as the other LLM routes are.

use axum::extract::State;
use axum::response::Response;
use serde_json::json;

use super::error::json_ok;
use super::state::Compat;

/// v2 answers camelCase.
pub async fn credit_usage_v2() -> Response {
    json_ok(json!({
        "success": true,
        "data": {"remainingCredits": 0, "planCredits": 0,
                 "billingPeriodStart": null, "billingPeriodEnd": null}
    }))
}

/// v1's Python client reads snake_case (`remaining_credits`), its JS client camelCase:
/// both are there.
pub async fn credit_usage_v1() -> Response {
    json_ok(json!({
        "success": true,
        "data": {"remaining_credits": 0, "plan_credits": 0,
                 "billing_period_start": null, "billing_period_end": null,
                 "remainingCredits": 0, "planCredits": 0,
                 "billingPeriodStart": null, "billingPeriodEnd": null}
    }))
}

pub async fn token_usage() -> Response {
    json_ok(json!({
        "success": true,
        "data": {"remainingTokens": 0, "planTokens": 0,
                 "billingPeriodStart": null, "billingPeriodEnd": null,
                 "remaining_tokens": 0, "plan_tokens": 0,
                 "billing_period_start": null, "billing_period_end": null}
    }))
}

/// Jobs running now: crawls and batches. None waits: a crawl beyond `--max-crawls` is
/// refused rather than queued, and a batch starts at once.
pub async fn queue_status(State(compat): State<Compat>) -> Response {
    let crawls = compat.agent.crawls().map_or(0, |c| c.running());
    let jobs = crawls + compat.batches.running();
    json_ok(json!({
        "success": true,
        "jobsInQueue": jobs,
        "activeJobsInQueue": jobs,
        "waitingJobsInQueue": 0,
        "maxConcurrency": compat.server.gate.max_concurrent(),
        "mostRecentSuccess": null,
    }))
}

/// Calls running now of the most this server runs at once (`--max-concurrent`).
pub async fn concurrency_check(State(compat): State<Compat>) -> Response {
    json_ok(json!({
        "success": true,
        "concurrency": compat.server.gate.inflight(),
        "maxConcurrency": compat.server.gate.max_concurrent(),
    }))
}
