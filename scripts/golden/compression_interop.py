#!/usr/bin/env python3
"""Golden: compression summaries across the two programs sharing a v21 home.

Upstream v21 tells an earlier compression's summary from a turn only by the text the message starts with (the v21
messages table has no `_compressed_summary` column, so its in-process flag does not survive a reload). Two
directions are recorded:

caduceus  Caduceus compresses a session upstream wrote (scripts/golden/compression-caduceus.ts: its own agent on a
          scripted provider), once with the summary as a message of its own and once merged into the first kept
          message. Upstream then goes on in the continuation and a fresh upstream agent resumes it and compresses:
          the messages are loaded as `hermes --resume` loads them (SessionDB.get_messages_as_conversation), and
          upstream's own ContextCompressor says, per message, whether it is a summary; which summary it would update
          (_find_latest_context_summary) and the last real user message (_find_last_user_message_idx); and, running
          compress() with its summary call replaced by a recorder, the earlier summary it updates and the turns it
          summarizes.
upstream  Upstream compresses sessions itself (ContextCompressor.compress, summary call replaced by a fixed text),
          and writes the continuation as its agent does (end_session(..., "compression"), create_session with the
          parent, the compressed messages appended in order): once standalone, once merged. The test has Caduceus
          compress those continuations (test/compression-interop.test.ts).

Output (test/fixtures/upstream/compression-interop/): state.db (the v21 home holding upstream's continuations) and
golden.json (the upstream commit, each case's inputs, Caduceus's rows as upstream read them, and upstream's
verdicts).

Run: /usr/bin/python3 scripts/golden/compression_interop.py   (node_modules present; runs the TS helper with npx tsx)
"""
import copy
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from upstream_cli import UPSTREAM, upstream_commit

sys.path.insert(0, UPSTREAM)
from hermes_state import SessionDB  # noqa: E402
from agent import context_compressor  # noqa: E402
from agent.context_compressor import ContextCompressor  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "compression-interop"
MODEL = "gpt-4o-mini"
CONTEXT = 4_000


def long(tag, n=15):
    return f"{tag} " + "lorem ipsum dolor sit amet " * n


# Caduceus's cases: the parent upstream wrote, the turn Caduceus runs, how many messages it keeps.
CADUCEUS = {
    "standalone": {"protectLastN": 2, "summary": "CAD-STANDALONE: the user planned a trip; flights are booked."},
    "merged": {"protectLastN": 1, "summary": "CAD-MERGED: the user compared two laptops and chose the lighter one."},
}
# Upstream's cases: how many head messages its compressor protects (placing the summary alone or merged).
UPSTREAM = {
    "standalone": {"protect_first_n": 3, "summary": "UP-STANDALONE: the user set up a garden; tomatoes planted."},
    "merged": {"protect_first_n": 2, "summary": "UP-MERGED: the user debugged a build; the cache was stale."},
}


def seed(db, sid, tag, pairs=3):
    db.create_session(sid, "cli", model=MODEL)
    for i in range(pairs):
        db.append_message(sid, "user", long(f"{tag} question {i}"))
        db.append_message(sid, "assistant", long(f"{tag} answer {i}"))


def compressor():
    return ContextCompressor(MODEL, config_context_length=CONTEXT, quiet_mode=True)


def head(text, n=60):
    return text if len(text) <= n else text[:n] + "…"


def fold(c, messages, summary):
    """compress() with only its model call replaced (its summary prompt is built and its answer handled as ever):
    the earlier summary it updates, the turns it summarizes, whether that summary's text is among them, and the
    messages it returns."""
    seen = {}
    generate = c._generate_summary

    def turns_seen(turns, focus_topic=None):
        seen["turns"] = [[m.get("role"), head(str(m.get("content") or ""))] for m in turns]
        return generate(turns, focus_topic=focus_topic)

    def model_call(**kwargs):
        prompt = kwargs["messages"][-1]["content"]
        seen["previous_summary"] = c._previous_summary
        seen["updates_previous_summary"] = "PREVIOUS SUMMARY:" in prompt
        turns = prompt.split("NEW TURNS TO INCORPORATE:" if seen["updates_previous_summary"] else "TURNS TO SUMMARIZE:", 1)[1]
        seen["summary_marker_among_turns"] = "[CONTEXT SUMMARY]" in turns or "[CONTEXT COMPACTION" in turns
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=summary))])

    c._generate_summary = turns_seen
    with mock.patch.object(context_compressor, "call_llm", model_call):
        out = c.compress(copy.deepcopy(messages))
    return seen, out


def upstream_reads(db, sid):
    """Upstream goes on in `sid`, then a fresh upstream agent resumes it and compresses."""
    for i in range(4):
        db.append_message(sid, "user", long(f"UPSTREAM-LATER question {i}", 25))
        db.append_message(sid, "assistant", long(f"UPSTREAM-LATER answer {i}", 25))
    messages = db.get_messages_as_conversation(sid)
    c = compressor()
    idx, body = ContextCompressor._find_latest_context_summary(messages, 0, len(messages))
    seen, out = fold(c, messages, "FOLDED BY UPSTREAM")
    return {
        "is_summary": [ContextCompressor._is_context_summary_content(m.get("content")) for m in messages],
        "latest_summary": {"index": idx, "body": body},
        "last_user_index": c._find_last_user_message_idx(messages, 0),
        "roles": [m["role"] for m in messages],
        "fold": seen,
        "compressed_head": [[m.get("role"), head(str(m.get("content") or ""), 120)] for m in out[:3]],
    }


def upstream_writes(db, key, case):
    """Upstream compresses its own session and writes the continuation as its agent does."""
    parent = f"up-{key}"
    seed(db, parent, f"UP-{key.upper()}", pairs=5)
    for i in range(3):
        db.append_message(parent, "user", long(f"UP-{key.upper()} late question {i}", 25))
        db.append_message(parent, "assistant", long(f"UP-{key.upper()} late answer {i}", 25))
    messages = db.get_messages_as_conversation(parent)
    c = ContextCompressor(MODEL, config_context_length=CONTEXT, quiet_mode=True,
                          protect_first_n=case["protect_first_n"])
    _, out = fold(c, messages, case["summary"])
    child = f"up-{key}-2"
    db.end_session(parent, "compression")
    db.create_session(child, "cli", model=MODEL, parent_session_id=parent)
    for m in out:
        db.append_message(child, m["role"], m.get("content"))
    rows = db.get_messages_as_conversation(child)
    return {
        "parent": parent,
        "child": child,
        "summary": case["summary"],
        "roles": [m["role"] for m in rows],
        "is_summary": [ContextCompressor._is_context_summary_content(m.get("content")) for m in rows],
        "merged": any(str(m.get("content") or "").startswith("[PRIOR CONTEXT") for m in rows),
    }


def main():
    home = Path(tempfile.mkdtemp(prefix="golden-compress-"))
    os.environ["HERMES_HOME"] = str(home)
    db = SessionDB(db_path=home / "state.db")
    try:
        cases = []
        for key, case in CADUCEUS.items():
            sid = f"cad-{key}"
            seed(db, sid, f"CAD-{key.upper()}")
            cases.append({"key": key, "sessionId": sid, "text": f"CAD-{key.upper()} next question", **case})
        parents = {c["sessionId"]: db.get_messages_as_conversation(c["sessionId"]) for c in cases}
        db.close()
        run = subprocess.run(
            ["npx", "tsx", str(ROOT / "scripts" / "golden" / "compression-caduceus.ts"), str(home), json.dumps(cases)],
            cwd=ROOT, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            raise SystemExit(run.stderr)
        children = json.loads(run.stdout.strip().splitlines()[-1])
        db = SessionDB(db_path=home / "state.db")
        caduceus = {}
        for c in cases:
            child = children[c["key"]]
            rows = db.get_messages_as_conversation(child)
            caduceus[c["key"]] = {
                "case": c,
                "parent_messages": [[m["role"], m["content"]] for m in parents[c["sessionId"]]],
                "child": child,
                # what Caduceus wrote, as upstream loads it back
                "child_rows": [[m["role"], m["content"]] for m in rows],
                "upstream": upstream_reads(db, child),
            }
        db.close()
        # upstream's own continuations, in a home of their own: the fixture's state.db
        (home / "up").mkdir()
        db = SessionDB(db_path=home / "up" / "state.db")
        upstream = {key: upstream_writes(db, key, case) for key, case in UPSTREAM.items()}
        db.close()
        OUT.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            (OUT / f"state.db{suffix}").unlink(missing_ok=True)
        con = sqlite3.connect(home / "up" / "state.db")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute(f"VACUUM INTO '{OUT / 'state.db'}'")
        con.close()
        # The layouts Caduceus wrote before its summaries opened with upstream's marker: read as turns.
        earlier = {
            "standalone": "[Summary of the earlier conversation]\nS",
            "merged": "[Carried over from before the context was compacted: the message as it was sent]\nq\n\n"
                      "[End of the carried-over message. A summary of the earlier conversation follows]\n\n"
                      "[Summary of the earlier conversation]\nS",
        }
        golden = {
            "upstream_commit": upstream_commit(),
            "caduceus": caduceus,
            "upstream": upstream,
            "earlier_caduceus_layouts_are_summaries": {
                k: ContextCompressor._is_context_summary_content(v) for k, v in earlier.items()},
        }
        (OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
