"""Golden home holding async delegations recorded by upstream Hermes's own tools/async_delegation.py.

Writes test/fixtures/upstream/async-delegations/state.db: a parent session (hermes_state.SessionDB), then through
async_delegation._persist_dispatch / _persist_completion (the functions upstream's background delegate_task calls):
- deleg_run00001: dispatched, still running; one delegate child session started with its goal;
- deleg_done0001: completed with a summary; one delegate child session started with its goal;
- deleg_fail0001: failed (status "error") with an error and no child session;
- deleg_dupe0001: completed; two delegate children share its goal (no child can be told apart).
Delegate children are created as upstream's delegate tool creates them (source "delegate", parent_session_id and
model_config._delegate_from = the parent, the goal as the first user message).

Run: /usr/bin/python3 scripts/golden/async_delegations.py   (HERMES_UPSTREAM defaults to /work/upstream)
With `complete <home> <delegation_id> [status]` it instead records one completion into an existing home, as
upstream's worker does when a child finishes (a test runs it as the other process).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UPSTREAM = Path(os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "async-delegations"
PARENT = "20260201_090000_pa01"


def upstream(home):
    os.environ["HERMES_HOME"] = str(home)
    sys.path.insert(0, str(UPSTREAM))
    import hermes_state  # noqa: E402
    from tools import async_delegation  # noqa: E402

    return hermes_state, async_delegation


def event(ad_id, goal, status, summary=None, error=None, dispatched_at=None, completed_at=None):
    return {
        "type": "async_delegation",
        "delegation_id": ad_id,
        "session_key": "",
        "origin_ui_session_id": "",
        "parent_session_id": PARENT,
        "goal": goal,
        "context": None,
        "toolsets": None,
        "role": "leaf",
        "model": "gpt-4o-mini",
        "status": status,
        "summary": summary,
        "error": error,
        "api_calls": 2,
        "duration_seconds": round((completed_at or 0) - (dispatched_at or 0), 2),
        "dispatched_at": dispatched_at,
        "completed_at": completed_at,
        "exit_reason": None,
    }


def dispatch(ad, ad_id, goal):
    t = time.time()
    ad._persist_dispatch(
        {
            "delegation_id": ad_id,
            "session_key": "",
            "origin_ui_session_id": "",
            "parent_session_id": PARENT,
            "dispatched_at": t,
            "goal": goal,
            "context": None,
            "toolsets": None,
            "role": "leaf",
            "model": "gpt-4o-mini",
        }
    )
    return t


def child(db, sid, goal, answer=None):
    db.create_session(
        sid,
        "delegate",
        model="gpt-4o-mini",
        model_config={"_delegate_from": PARENT},
        parent_session_id=PARENT,
        system_prompt="You are a focused subagent.",
    )
    db.append_message(sid, "user", goal)
    if answer:
        db.append_message(sid, "assistant", answer, finish_reason="stop")
        db.end_session(sid, "completed")


def complete(ad, ad_id, goal, status, dispatched_at, summary=None, error=None):
    done = time.time()
    ad._persist_completion(
        event(ad_id, goal, status, summary, error, dispatched_at, done),
        {"status": status, "summary": summary, "error": error, "api_calls": 2, "model": "gpt-4o-mini"},
    )


def build():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    hermes_state, ad = upstream(OUT)
    db = hermes_state.SessionDB(db_path=OUT / "state.db")
    db.create_session(PARENT, "cli", model="gpt-4o", system_prompt="You are Hermes.")
    db.set_session_title(PARENT, "Heater research")
    db.append_message(PARENT, "user", "Research heaters in the background")
    db.append_message(PARENT, "assistant", "Dispatched four background subagents.", finish_reason="stop")

    t = dispatch(ad, "deleg_done0001", "Compare igniter prices")
    child(db, "20260201_090100_ch01", "Compare igniter prices", "Cheapest igniter: 19 USD")
    complete(ad, "deleg_done0001", "Compare igniter prices", "completed", t, summary="Cheapest igniter: 19 USD")

    t = dispatch(ad, "deleg_fail0001", "Call the supplier hotline")
    complete(ad, "deleg_fail0001", "Call the supplier hotline", "error", t, error="Provider returned 429: rate limited")

    t = dispatch(ad, "deleg_dupe0001", "Check the warranty")
    child(db, "20260201_090200_ch02", "Check the warranty", "Two years.")
    child(db, "20260201_090300_ch03", "Check the warranty", "Two years, parts only.")
    complete(ad, "deleg_dupe0001", "Check the warranty", "completed", t, summary="Two years, parts only.")

    dispatch(ad, "deleg_run00001", "Survey heater brands")
    child(db, "20260201_090400_ch04", "Survey heater brands")
    db.close()
    for suffix in ("-wal", "-shm"):
        q = Path(str(OUT / "state.db") + suffix)
        if q.exists():
            q.unlink()
    commit = subprocess.run(["git", "-C", str(UPSTREAM), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    (OUT / "README.md").write_text(
        "# Async delegations upstream recorded (golden)\n\n"
        "Written by upstream Hermes's own `hermes_state.SessionDB` and `tools/async_delegation.py`\n"
        f"(`_persist_dispatch`, `_persist_completion`){' at commit `' + commit + '`' if commit else ''}, via\n"
        "`scripts/golden/async_delegations.py`. Do not edit by hand: rerun the script.\n\n"
        "- `deleg_run00001` running (child `20260201_090400_ch04`), `deleg_done0001` completed (child\n"
        "  `20260201_090100_ch01`), `deleg_fail0001` failed (no child), `deleg_dupe0001` completed with two children\n"
        "  of the same goal (ambiguous: no child linked). Parent `20260201_090000_pa01`.\n"
    )


def complete_one(home, ad_id, status):
    hermes_state, ad = upstream(home)
    import json
    import sqlite3

    conn = sqlite3.connect(Path(home) / "state.db")
    row = conn.execute("SELECT task_json, dispatched_at FROM async_delegations WHERE delegation_id=?", (ad_id,)).fetchone()
    conn.close()
    goal = json.loads(row[0] or "{}").get("goal", "")
    ok = status == "completed"
    complete(ad, ad_id, goal, status, row[1], summary="Brands: Acme, Borealis" if ok else None, error=None if ok else "child failed")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "complete":
        complete_one(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "completed")
    else:
        build()
