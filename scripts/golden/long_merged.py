#!/usr/bin/env python3
"""Golden: compression summaries longer than a transcript page's cut (MESSAGE_PREVIEW_CHARS, 32,768 characters),
merged into a kept message, in the layouts upstream writes or wrote.

merged       upstream's ContextCompressor.compress() on a session whose head and tail leave no role for a summary of
             its own (protect_first_n=2), its summary call replaced by a fixed ~40,000-character text: it frames the
             first kept message, then the summary and its end line. The continuation is written as upstream's agent
             writes one (end_session(..., "compression"), create_session with the parent, the messages in order).
             The kept message is itself ~35,000 characters (a pasted file), so the delimiter after it is past the cut
             too (with short kept words it is not: the summary's start alone is cut, which read well before).
summary-first  the merged row an earlier release wrote (its summary and end line first, then the kept words), built
             from the compressor module's own constants, as one message of a session of its own.

Output (test/fixtures/upstream/long-merged/): state.db (the v21 home) and golden.json (the upstream commit, each
case's session, the row holding the summary, the kept words and the summary's size).
Run: /usr/bin/python3 scripts/golden/long_merged.py
"""
import copy
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from upstream_cli import UPSTREAM, upstream_commit

sys.path.insert(0, UPSTREAM)
from hermes_state import SessionDB  # noqa: E402
from agent import context_compressor as cc  # noqa: E402
from agent.context_compressor import ContextCompressor  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "long-merged"
MODEL = "gpt-4o-mini"
# one summary line per topic, numbered so any cut point is told apart: ~40,000 characters in all
SUMMARY = "## Progress\n" + "".join(f"- step {i:04d}: the parser keeps its fields in order\n" for i in range(800))


def long(tag, n=15):
    return f"{tag} " + "lorem ipsum dolor sit amet " * n


def compress_merged(db, parent, pasted=None):
    """`pasted`: the question at that index is long itself (a pasted file), so the kept words pass the cut too."""
    child = parent + "-2"
    db.create_session(parent, "cli", model=MODEL)
    for i in range(8):
        db.append_message(parent, "user", long(f"LONG question {i}", 1_300 if i == pasted else 25))
        db.append_message(parent, "assistant", long(f"LONG answer {i}", 25))
    messages = db.get_messages_as_conversation(parent)
    c = ContextCompressor(MODEL, config_context_length=4_000, quiet_mode=True, protect_first_n=2)

    def model_call(**kwargs):
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=SUMMARY))])

    with mock.patch.object(cc, "call_llm", model_call):
        out = c.compress(copy.deepcopy(messages))
    db.end_session(parent, "compression")
    db.create_session(child, "cli", model=MODEL, parent_session_id=parent)
    for m in out:
        db.append_message(child, m["role"], m.get("content"))
    rows = db.get_messages_as_conversation(child)
    at = next(i for i, m in enumerate(rows) if str(m.get("content") or "").startswith(cc._MERGED_PRIOR_CONTEXT_HEADER))
    text = rows[at]["content"]
    kept = text[len(cc._MERGED_PRIOR_CONTEXT_HEADER) + 1:text.index("\n\n" + cc._MERGED_SUMMARY_DELIMITER)]
    return {"sessionId": child, "parent": parent, "index": at, "role": rows[at]["role"], "kept": kept,
            "chars": len(text), "upstream_is_summary": ContextCompressor._is_context_summary_content(text)}


def summary_first(db):
    sid, kept = "long-summary-first", "LONG-FIRST: and which tests cover the parser?"
    text = ContextCompressor._with_summary_prefix(SUMMARY) + "\n\n" + cc._SUMMARY_END_MARKER + "\n\n" + kept
    db.create_session(sid, "cli", model=MODEL)
    db.append_message(sid, "user", text)
    db.append_message(sid, "assistant", "LONG-FIRST: the parser tests are in test_parser.py.")
    return {"sessionId": sid, "index": 0, "role": "user", "kept": kept, "chars": len(text),
            "upstream_is_summary": ContextCompressor._is_context_summary_content(text)}


def main():
    home = Path(tempfile.mkdtemp(prefix="golden-long-merged-"))
    os.environ["HERMES_HOME"] = str(home)
    db = SessionDB(db_path=home / "state.db")
    # the compressor keeps the tail's first message (question 4 here) and frames it before the summary
    cases = {"merged": compress_merged(db, "long-merged", pasted=4), "summary-first": summary_first(db)}
    db.close()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "state.db").unlink(missing_ok=True)
    con = sqlite3.connect(home / "state.db")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute(f"VACUUM INTO '{OUT / 'state.db'}'")
    con.close()
    golden = {"upstream_commit": upstream_commit(), "summary_chars": len(SUMMARY), "cases": cases}
    (OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
