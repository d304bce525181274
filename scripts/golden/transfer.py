#!/usr/bin/env python3
"""Golden data for import/export, delete and prune (issue #22), written by upstream Hermes's own code.

Run with the system Python (its SQLite is the one that indexes upstream homes on this machine):
  /usr/bin/python3 scripts/golden/transfer.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/transfer/:
  home.db                     a home built with upstream's SessionDB (tool calls, multimodal rows, a JSON-looking
                              string, '', rewound rows, compression chain, delegate/branch children, live child)
  upstream-export.jsonl       upstream's export_all of that home (what `hermes sessions export` writes)
  upstream-view.json          upstream's get_messages(include_inactive=True) + session rows of that home
  caduceus-export.jsonl       Caduceus's `sessions export` of home.db (needs `npm run`-able worktree)
  caduceus-through-upstream.json  upstream's import_sessions of caduceus-export.jsonl, read back with get_messages
  prune.json / delete.json    upstream's prune (older than 30 days) and delete_session results on copies
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
sys.path.insert(0, UPSTREAM)
import hermes_state as hs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "transfer"
OLD = 1_600_000_000.0  # 2020: older than any prune window
FUTURE = 4_000_000_000.0  # 2096: never pruned, whenever the tests run
IMAGE = "data:image/png;base64," + "iVBORw0KGgo" * 40


def build(path: Path) -> None:
    db = hs.SessionDB(path)
    t = OLD

    def msg(sid, role, content=None, **kw):
        nonlocal t
        t += 10
        return db.append_message(sid, role, content, timestamp=t, **kw)

    db.create_session("s-tools", "cli", model="gpt-x", system_prompt="You are terse.", cwd="/work/proj")
    msg("s-tools", "user", "check the heater logs")
    calls = [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "heater.log"}'}}]
    msg("s-tools", "assistant", None, tool_calls=calls, finish_reason="tool_calls", reasoning="need the log")
    msg("s-tools", "tool", '{"lines": 3}', tool_call_id="call_1", tool_name="read_file", token_count=12)
    msg("s-tools", "assistant", "The heater tripped twice.", finish_reason="stop")
    db.end_session("s-tools", "cli_close")

    db.create_session("s-mm", "telegram", model="gpt-x", user_id="u42")
    parts = [{"type": "text", "text": "what is this theater poster 東京"}, {"type": "image_url", "image_url": {"url": IMAGE}}]
    msg("s-mm", "user", parts)
    msg("s-mm", "assistant", "A poster for a theater in Tokyo.")
    msg("s-mm", "user", '[{"type": "text", "text": "a string that looks like JSON"}]')
    msg("s-mm", "user", "")
    db.end_session("s-mm", "user_exit")

    db.create_session("s-rewind", "cli")
    msg("s-rewind", "user", "first question")
    msg("s-rewind", "assistant", "first answer")
    target = msg("s-rewind", "user", "my password is zebrasecret")
    msg("s-rewind", "assistant", "noted zebrasecret")
    db.rewind_to_message("s-rewind", target)

    db.create_session("c-root", "cli")
    db.set_session_title("c-root", "Long chat")
    msg("c-root", "user", "long chat start")
    db.end_session("c-root", "compression")
    db.create_session("c-tip", "cli", parent_session_id="c-root")
    msg("c-tip", "user", "long chat continued")
    db.end_session("c-tip", "cli_close")

    db.create_session("d-child", "cli", parent_session_id="s-tools", model_config={"_delegate_from": "s-tools"})
    msg("d-child", "user", "subagent task")
    db.end_session("d-child", "completed")
    db.create_session("b-child", "cli", parent_session_id="s-tools", model_config={"_branched_from": "s-tools"})
    msg("b-child", "user", "a branch")
    db.create_session("d-live", "cli", parent_session_id="s-mm", model_config={"_delegate_from": "s-mm"})
    msg("d-live", "user", [{"type": "text", "text": "live delegate with picture"}, {"type": "image_url", "image_url": {"url": IMAGE}}])

    db.create_session("s-recent", "cli")
    msg("s-recent", "user", "recent heater")
    db.end_session("s-recent", "cli_close")
    db.create_session("s-archived", "cli")
    msg("s-archived", "user", "archived old")
    db.end_session("s-archived", "cli_close")
    db.set_session_archived("s-archived", True)
    db.close()

    conn = sqlite3.connect(path)
    # Fixed start times (create_session stamps now): old except s-recent; counters for the transfer check.
    conn.execute("UPDATE sessions SET started_at = ? + rowid * 100, ended_at = CASE WHEN ended_at IS NULL THEN NULL ELSE ? + rowid * 100 + 50 END", (OLD, OLD))
    conn.execute("UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = 's-recent'", (FUTURE, FUTURE + 50))
    conn.execute("UPDATE sessions SET input_tokens = 1200, output_tokens = 340, reasoning_tokens = 56, api_call_count = 3, estimated_cost_usd = 0.0123 WHERE id = 's-tools'")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def view(db):
    rows = db._conn.execute("SELECT id FROM sessions ORDER BY id").fetchall()
    out = {}
    for (sid,) in rows:
        s = db.get_session(sid)
        out[sid] = {
            "session": {k: s[k] for k in ("source", "parent_session_id", "ended_at", "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens", "title", "archived", "model_config")},
            "messages": [
                {k: m.get(k) for k in ("role", "content", "tool_calls", "tool_call_id", "tool_name", "finish_reason", "reasoning", "token_count", "timestamp", "active")}
                for m in db.get_messages(sid, include_inactive=True)
            ],
        }
    return out


def fts_check(path):
    conn = sqlite3.connect(path)
    res = {}
    for t in ("messages_fts", "messages_fts_trigram"):
        try:
            conn.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')")
            res[t] = "ok"
        except sqlite3.DatabaseError as e:
            res[t] = str(e)
    conn.close()
    return res


def hits(db, q):
    return sorted({h["session_id"] for h in db.search_messages(q, limit=100)})


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    home = OUT / "home.db"
    for p in (home, Path(str(home) + "-wal"), Path(str(home) + "-shm")):
        p.unlink(missing_ok=True)
    build(tmp / "state.db")
    shutil.copy(tmp / "state.db", home)

    db = hs.SessionDB(tmp / "state.db")
    with open(OUT / "upstream-export.jsonl", "w", encoding="utf-8") as f:
        for s in db.export_all():
            f.write(json.dumps(s, ensure_ascii=False) + "\n")
    (OUT / "upstream-view.json").write_text(json.dumps({"sqlite": sqlite3.sqlite_version, "sessions": view(db), "search": {q: hits(db, q) for q in ("heater", "zebrasecret", "theater")}}, indent=1, ensure_ascii=False))
    db.close()

    # Upstream's prune and delete on copies of the same home.
    for name, act in (("prune", lambda d: d.prune_sessions(older_than_days=30)), ("delete", lambda d: d.delete_session("s-tools"))):
        p = tmp / f"{name}.db"
        shutil.copy(home, p)
        d = hs.SessionDB(p)
        cand = [r["id"] for r in d.list_prune_candidates(older_than_days=30)] if name == "prune" else None
        result = act(d)
        after = {r[0]: {"parent": r[1], "messages": r[2]} for r in d._conn.execute("SELECT s.id, s.parent_session_id, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s ORDER BY s.id")}
        search = {q: hits(d, q) for q in ("heater", "theater", "live", "poster")}
        d.close()
        (OUT / f"{name}.json").write_text(json.dumps({"result": result, "candidates": cand, "sessions": after, "search": search, "fts": fts_check(p)}, indent=1, ensure_ascii=False))

    # Caduceus's export of the upstream-written home, then upstream's import of it, read back upstream's way.
    chome = tmp / "cad"
    chome.mkdir()
    shutil.copy(home, chome / "state.db")
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(tmp / "logs")}
    exp = subprocess.run(["node", "bin/caduceus.mjs", "sessions", "export", "--home", str(chome)], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    (OUT / "caduceus-export.jsonl").write_text(exp, encoding="utf-8")
    back = hs.SessionDB(tmp / "back.db")
    result = back.import_sessions([json.loads(line) for line in exp.splitlines() if line.strip()])
    result.pop("imported_ids", None)
    result.pop("skipped_ids", None)
    (OUT / "caduceus-through-upstream.json").write_text(json.dumps({"import": result, "sessions": view(back), "search": {q: hits(back, q) for q in ("heater", "zebrasecret", "theater")}, "fts": fts_check(tmp / "back.db")}, indent=1, ensure_ascii=False))
    back.close()
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
