#!/usr/bin/env python3
"""The billing_mode, cost_status and cost_source upstream writes on a session row and its session_model_usage rows
for one provider call in each pricing situation, by running its own code: agent/usage_pricing.py's normalize_usage
and estimate_usage_cost, then SessionDB.update_token_counts with the arguments agent/conversation_loop.py passes
(cost_status/cost_source from the estimate, billing_provider/base_url of the agent, billing_mode
"subscription_included" only for an included route, else None; api_call_count=1).

The endpoint's /models metadata (fetch_endpoint_model_metadata) answers {} — what an endpoint whose models list
carries no prices answers, and what a closed port answers — so no case reaches the network.

Cases (usage: 1200 prompt tokens of which 200 cached, 40 completion, as the entry_rows golden's provider reports, in
the shape of the case's wire):
- priced: anthropic claude-opus-4-7 (upstream's price table, "official docs snapshot");
- unpriced_known_provider: anthropic, a model its table does not list;
- local: provider custom on a localhost endpoint (a free local model);
- unknown_provider: provider "mystery" on a remote endpoint;
- priced_then_unpriced: the priced call, then an unpriced one on the same session;
- older_caduceus_mode: a session whose row already holds billing_mode 'chat_completions' (as Caduceus wrote it
  before), then an unpriced call: where upstream's route row takes its billing_mode from;
- first_call_other_route: a session row created for one model (a turn that failed before any call), whose first
  accounted call ran another (the model was changed before the retry): which model and route the row then names;
- included: openai-codex (a subscription route; Caduceus has no such provider, recorded for the vocabulary).
Recorded per case: the session row's columns and the session_model_usage rows (amounts rounded to 9 places).

Run: /usr/bin/python3 scripts/golden/usage_values.py   (HERMES_UPSTREAM: the checkout, default /work/upstream)
Writes test/fixtures/upstream/usage-values/golden.json; read by src-main/store/usage-values.test.ts.
"""
from pathlib import Path
from types import SimpleNamespace

from golden_setup import upstream_home, write_golden

HOME = upstream_home()
import agent.usage_pricing as up  # noqa: E402
from hermes_state import SessionDB  # noqa: E402

up.fetch_endpoint_model_metadata = lambda *a, **k: {}
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "usage-values"
# the one call's usage in each wire's shape (normalize_usage reads each by its api_mode)
USAGE = {
    "chat_completions": SimpleNamespace(prompt_tokens=1200, completion_tokens=40, total_tokens=1240,
                                        prompt_tokens_details=SimpleNamespace(cached_tokens=200)),
    "anthropic_messages": SimpleNamespace(input_tokens=1000, output_tokens=40, cache_read_input_tokens=200,
                                          cache_creation_input_tokens=0),
    "codex_responses": SimpleNamespace(input_tokens=1200, output_tokens=40,
                                       input_tokens_details=SimpleNamespace(cached_tokens=200)),
}
SESSION_COLS = ["model", "billing_provider", "billing_base_url", "billing_mode", "estimated_cost_usd", "actual_cost_usd",
                "cost_status", "cost_source", "pricing_version", "api_call_count"]
ROUTE_COLS = ["model", "billing_provider", "billing_base_url", "billing_mode", "estimated_cost_usd", "actual_cost_usd",
              "cost_status", "cost_source", "api_call_count"]

PRICED = ("claude-opus-4-7", "anthropic", "https://api.anthropic.com", "anthropic_messages")
UNPRICED = ("claude-mystery-9", "anthropic", "https://api.anthropic.com", "anthropic_messages")
CASES = {
    "priced": [PRICED],
    "unpriced_known_provider": [UNPRICED],
    "local": [("llama3", "custom", "http://127.0.0.1:9/v1", "chat_completions")],
    "unknown_provider": [("gpt-4o", "mystery", "https://llm.example.internal/v1", "chat_completions")],
    "priced_then_unpriced": [PRICED, UNPRICED],
    "older_caduceus_mode": [UNPRICED],
    "first_call_other_route": [UNPRICED],
    "included": [("gpt-5.5", "openai-codex", "https://chatgpt.com/backend-api/codex", "codex_responses")],
}


def call(db, sid, model, provider, base_url, api_mode):
    """One provider call's accounting, as conversation_loop.py does it."""
    usage = up.normalize_usage(USAGE[api_mode], provider=provider, api_mode=api_mode)
    cost = up.estimate_usage_cost(model, usage, provider=provider, base_url=base_url, api_key="k")
    db.update_token_counts(
        sid,
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        estimated_cost_usd=float(cost.amount_usd) if cost.amount_usd is not None else None,
        cost_status=cost.status, cost_source=cost.source,
        billing_provider=provider, billing_base_url=base_url,
        billing_mode="subscription_included" if cost.status == "included" else None,
        model=model, api_call_count=1,
    )


def rounded(row, cols):
    return {c: round(row[c], 9) if isinstance(row[c], float) else row[c] for c in cols}


def main():
    db = SessionDB(HOME / "state.db")
    out = {}
    for name, calls in CASES.items():
        created = PRICED[0] if name == "first_call_other_route" else calls[0][0]
        db.create_session(name, "cli", model=created)
        if name == "older_caduceus_mode":
            db._conn.execute("UPDATE sessions SET billing_provider = ?, billing_base_url = ?, billing_mode = ? "
                             "WHERE id = ?", (UNPRICED[1], UNPRICED[2], "chat_completions", name))
            db._conn.commit()
        for c in calls:
            call(db, name, *c)
        s = db._conn.execute("SELECT * FROM sessions WHERE id = ?", (name,)).fetchone()
        routes = db._conn.execute("SELECT * FROM session_model_usage WHERE session_id = ? ORDER BY first_seen, model",
                                  (name,)).fetchall()
        out[name] = {"createdModel": created, "calls": [dict(zip(("model", "provider", "base_url", "api_mode"), c)) for c in calls],
                     "session": rounded(s, SESSION_COLS), "routes": [rounded(r, ROUTE_COLS) for r in routes]}
    db.close()
    write_golden(OUT / "golden.json", "scripts/golden/usage_values.py", {"cases": out})
    print(f"{len(out)} cases -> {OUT / 'golden.json'}")


if __name__ == "__main__":
    main()
