#!/usr/bin/env python3
"""Integers past 2**53 through an export: upstream's SessionDB (commit 9a75ff049b020ab5b24f76892f50f59064811028) writes
a home whose token counters, a message's token_count, a tool call's JSON and a multimodal content list hold integers a
JavaScript number cannot hold; Caduceus exports it (`node bin/caduceus.mjs sessions export`, from a built worktree);
upstream's import_sessions reads that file into an empty home and its export_all writes it back.

Run: /usr/bin/python3 scripts/golden/big_ints.py   (HERMES_UPSTREAM defaults to /work/upstream)
Writes test/fixtures/upstream/big-ints/:
  home.db                the home upstream wrote
  upstream-export.jsonl  upstream's own export_all of home.db (what an exact export holds)
  upstream-export.md     upstream's `sessions export --format md` text of it (render_session_markdown, without the
                         verification part that holds the export time)
  caduceus-export.jsonl  Caduceus's `sessions export` of home.db
  through-upstream.json  upstream's import of caduceus-export.jsonl: its result, and the integers it stored, as text
Read by test/upstream-transfer.test.ts.
"""
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from golden_setup import built_db, upstream_home

upstream_home()
import hermes_state as hs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "big-ints"
BIG = {"in": 2**60 + 1, "out": 2**63 - 1, "token_count": 2**55 + 3, "call_seq": 2**62 + 5, "part_seq": 2**58 + 7}


def build(path: Path) -> None:
    db = hs.SessionDB(path)
    db.create_session("big-1", "cli", model="m", model_config={"seed": BIG["call_seq"]})
    db.append_message("big-1", "user", [{"type": "text", "text": "count", "seq": BIG["part_seq"]}], timestamp=1700000001.5)
    calls = [{"id": "call_1", "type": "function", "seq": BIG["call_seq"],
              "function": {"name": "terminal", "arguments": json.dumps({"n": BIG["call_seq"]})}}]
    db.append_message("big-1", "assistant", "", tool_calls=calls, finish_reason="tool_calls",
                      token_count=BIG["token_count"], timestamp=1700000002.5)
    db.append_message("big-1", "tool", "ok", tool_call_id="call_1", tool_name="terminal", timestamp=1700000003.5)
    db.update_token_counts("big-1", input_tokens=BIG["in"], output_tokens=BIG["out"], api_call_count=1, model="m")
    db.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sessions SET started_at = 1700000000.25")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def stored_ints(db) -> dict:
    """The integers as the importing home stored them: columns as SQLite holds them, JSON fields as their text."""
    c = db._conn
    s = c.execute("SELECT input_tokens, output_tokens FROM sessions WHERE id = 'big-1'").fetchone()
    rows = c.execute("SELECT role, content, tool_calls, token_count FROM messages WHERE session_id = 'big-1' ORDER BY id")
    return {
        "input_tokens": str(s[0]), "output_tokens": str(s[1]),
        "messages": [{"role": r[0], "content": r[1], "tool_calls": r[2],
                      "token_count": None if r[3] is None else str(r[3])} for r in rows],
    }


def main():
    db = built_db(build, OUT / "home.db")
    tmp = db.parent
    src = hs.SessionDB(db)
    with open(OUT / "upstream-export.jsonl", "w", encoding="utf-8") as f:
        for s in src.export_all():
            f.write(json.dumps(s, ensure_ascii=False) + "\n")
    from hermes_cli.session_export_md import render_session_markdown
    (OUT / "upstream-export.md").write_text(
        render_session_markdown(src.export_session("big-1"), fmt="md", include_verification=False), encoding="utf-8")
    src.close()

    cad = tmp / "cad"
    cad.mkdir()
    shutil.copy(OUT / "home.db", cad / "state.db")
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(tmp / "logs")}
    hop1 = subprocess.run(["node", "bin/caduceus.mjs", "sessions", "export", "-", "--home", str(cad)],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    (OUT / "caduceus-export.jsonl").write_text(hop1, encoding="utf-8")
    up = hs.SessionDB(tmp / "up.db")
    result = up.import_sessions([json.loads(line) for line in hop1.splitlines() if line.strip()])
    through = {"import": {k: result[k] for k in ("ok", "imported", "skipped", "errors")}, "stored": stored_ints(up),
               "expected": {k: str(v) for k, v in BIG.items()}}
    up.close()
    (OUT / "through-upstream.json").write_text(json.dumps(through, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
