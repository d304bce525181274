"""Golden v21 home made by upstream Hermes's own SessionDB (hermes_state.py, schema v21).

Writes test/fixtures/upstream/v21-two-profiles/{state.db, profiles/work/state.db} with sessions, delegate
child sessions (parent_session_id + model_config._delegate_from, as upstream's delegate tool sets them),
per-call usage and cost (update_token_counts -> session_model_usage), titles, an ended session, inline
system prompts and messages with tool calls. Only upstream's public SessionDB methods write the files.

Run: /usr/bin/python3 scripts/golden/v21_two_profiles.py   (HERMES_UPSTREAM defaults to /work/upstream)
"""
import os
import shutil
import subprocess
from pathlib import Path

from golden_setup import upstream_home
from upstream_cli import UPSTREAM

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "v21-two-profiles"

# hermes_state resolves a default home at import; point it at a scratch dir so nothing real is touched.
upstream_home()
import hermes_state  # noqa: E402

T0 = 1767225600.0  # 2026-01-01T00:00:00Z: fixed timestamps so the data reads the same on every run


def usage(db, sid, model, provider, inp, out, cost, calls=1, cache_read=0, status="estimated"):
    db.update_token_counts(
        sid,
        input_tokens=inp,
        output_tokens=out,
        cache_read_tokens=cache_read,
        model=model,
        estimated_cost_usd=cost,
        cost_status=status,
        cost_source="pricing" if cost is not None else "none",
        billing_provider=provider,
        billing_base_url=f"https://{provider}.example/v1",
        billing_mode="api",
        api_call_count=calls,
    )


def fill_default(db):
    db.create_session(
        "20260101_090000_aa01",
        "cli",
        model="gpt-4o",
        model_config={"temperature": 0.2},
        system_prompt="You are Hermes, the default persona. Be brief.",
    )
    db.set_session_title("20260101_090000_aa01", "Heater repair plan")
    db.append_message("20260101_090000_aa01", "user", "My heater makes a clicking noise", timestamp=T0 + 1)
    db.append_message(
        "20260101_090000_aa01",
        "assistant",
        "Let me look that up.",
        tool_calls=[{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": '{"q": "heater clicking"}'}}],
        finish_reason="tool_calls",
        timestamp=T0 + 2,
    )
    db.append_message(
        "20260101_090000_aa01", "tool", '{"results": ["igniter fault"]}', tool_name="web_search", tool_call_id="call_1", timestamp=T0 + 3
    )
    db.append_message("20260101_090000_aa01", "assistant", "A clicking heater usually means a worn igniter.", finish_reason="stop", timestamp=T0 + 4)
    usage(db, "20260101_090000_aa01", "gpt-4o", "openai", 1200, 300, 0.0105, calls=2, cache_read=100)

    # A delegate child, as upstream's delegate tool creates it.
    child = "20260101_090100_cc01"
    db.create_session(
        child,
        "delegate",
        model="gpt-4o-mini",
        model_config={"_delegate_from": "20260101_090000_aa01"},
        parent_session_id="20260101_090000_aa01",
        system_prompt="You are a focused subagent.",
    )
    db.append_message(child, "user", "Find igniter part numbers", timestamp=T0 + 5)
    db.append_message(child, "assistant", "Part 1234-IGN fits most models.", finish_reason="stop", timestamp=T0 + 6)
    usage(db, child, "gpt-4o-mini", "openai", 400, 80, 0.0002)
    db.end_session(child, "completed")

    # An async delegation upstream's own tool recorded (dispatch, then completion) for the first session.
    os.environ["HERMES_HOME"] = str(db.db_path.parent)
    from tools import async_delegation

    async_delegation._persist_dispatch(
        {
            "delegation_id": "deleg_0001",
            "session_key": "cli:default",
            "parent_session_id": "20260101_090000_aa01",
            "dispatched_at": T0 + 10,
            "goal": "Compare igniter prices",
            "model": "gpt-4o-mini",
        }
    )
    async_delegation._persist_completion(
        {"delegation_id": "deleg_0001", "status": "completed", "completed_at": T0 + 20},
        {"status": "completed", "summary": "Cheapest igniter: 19 USD"},
    )

    db.create_session("20260102_100000_aa02", "telegram", model="claude-sonnet", system_prompt="Default persona, telegram.")
    db.append_message("20260102_100000_aa02", "user", "Remind me about the dentist", timestamp=T0 + 86400)
    db.append_message("20260102_100000_aa02", "assistant", "Noted: dentist on Friday.", finish_reason="stop", timestamp=T0 + 86401)
    # A model upstream has no price for: the cost upstream's own estimate gives it (amount None, status "unknown"),
    # stored as its agent loop stores every call (update_token_counts turns the missing amount into 0.0).
    from agent.usage_pricing import CanonicalUsage, estimate_usage_cost

    unpriced = estimate_usage_cost(
        "llama3.1:8b", CanonicalUsage(input_tokens=500, output_tokens=50), provider="custom", base_url="http://localhost:11434/v1"
    )
    assert unpriced.amount_usd is None and unpriced.status == "unknown", unpriced
    usage(db, "20260102_100000_aa02", "claude-sonnet", "anthropic", 500, 50, unpriced.amount_usd, status=unpriced.status)
    db.end_session("20260102_100000_aa02", "user_exit")


def fill_work(db):
    db.create_session("20260103_080000_bb01", "cli", model="gpt-4o", system_prompt="You are Hermes at work.")
    db.set_session_title("20260103_080000_bb01", "Quarterly report outline")
    db.append_message("20260103_080000_bb01", "user", "Outline the quarterly report", timestamp=T0 + 2 * 86400)
    db.append_message("20260103_080000_bb01", "assistant", "1. Revenue 2. Costs 3. Outlook", finish_reason="stop", timestamp=T0 + 2 * 86400 + 1)
    usage(db, "20260103_080000_bb01", "gpt-4o", "openai", 800, 200, 0.004)
    usage(db, "20260103_080000_bb01", "gpt-4o-mini", "openai", 100, 20, 0.0001)

    child = "20260103_080100_cc02"
    db.create_session(
        child,
        "delegate",
        model="gpt-4o-mini",
        model_config={"_delegate_from": "20260103_080000_bb01"},
        parent_session_id="20260103_080000_bb01",
    )
    db.append_message(child, "user", "Summarise revenue numbers", timestamp=T0 + 2 * 86400 + 2)
    db.append_message(child, "assistant", "Revenue grew 12 percent.", finish_reason="stop", timestamp=T0 + 2 * 86400 + 3)
    usage(db, child, "gpt-4o-mini", "openai", 300, 60, 0.00015)
    db.end_session(child, "completed")


def build(path, fill):
    path.parent.mkdir(parents=True, exist_ok=True)
    db = hermes_state.SessionDB(db_path=path)
    fill(db)
    db.close()


def check(path):
    """Read back through upstream's eyes (read-only open: no DDL)."""
    db = hermes_state.SessionDB(db_path=path, read_only=True)
    rows = db.list_sessions_rich(limit=50)
    assert rows, f"upstream lists no sessions in {path}"
    db.close()


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    build(OUT / "state.db", fill_default)
    build(OUT / "profiles" / "work" / "state.db", fill_work)
    for p in (OUT / "state.db", OUT / "profiles" / "work" / "state.db"):
        check(p)
        for suffix in ("-wal", "-shm"):  # the read-only check leaves empty companions behind
            q = Path(str(p) + suffix)
            if q.exists():
                q.unlink()
    commit = subprocess.run(["git", "-C", str(UPSTREAM), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if not commit:
        commit = "9a75ff049b020ab5b24f76892f50f59064811028"
    (OUT / "README.md").write_text(
        "# v21 two-profile home (golden)\n\n"
        "Written by upstream Hermes's own `hermes_state.SessionDB` (schema v21) from the fork\n"
        f"`thanhdatbui/hermes-agent` at commit `{commit}`, via `scripts/golden/v21_two_profiles.py`.\n"
        "Do not edit by hand: rerun the script (`HERMES_UPSTREAM=<checkout> /usr/bin/python3 scripts/golden/v21_two_profiles.py`).\n\n"
        "- `state.db` (profile `default`): 3 sessions (one delegate child of the first), tool calls, usage and cost,\n"
        "  one completed async delegation recorded by upstream's `tools/async_delegation.py`.\n"
        "- `profiles/work/state.db` (profile `work`): 2 sessions (one delegate child), two models on one session.\n"
    )


if __name__ == "__main__":
    main()
