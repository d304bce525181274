#!/usr/bin/env python3
"""Fidelity golden home for issue #22, written only by upstream Hermes's own SessionDB (a mix transfer.py lacks).

Run with the system Python (its SQLite 3.40 builds every FTS index here):
  /usr/bin/python3 scripts/golden/fidelity.py          # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/fidelity/:
  home/state.db, home/profiles/work/state.db   two profiles (the same session id in both)
  upstream.json   what upstream's own code answers on that home, per profile:
                  get_messages(include_inactive=True) + session rows, export_all, export_session_lineage,
                  list_sessions_rich(order_by_last_active=True[, include_children=True]), search_messages,
                  and the results of delete_session / prune_sessions (several filters) on copies
  caduceus-export-<profile>.jsonl   Caduceus's `sessions export` of each profile (this worktree's CLI)
  caduceus-through-upstream.json    upstream's import_sessions of those files into empty homes, read back upstream's
                                    way (get_messages, get_session, search_messages, integrity checks)
"""
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from golden_setup import temp_dir, upstream_home

upstream_home()
import hermes_state as hs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "fidelity"
ANCIENT = 86_400.0 * 2  # 1970-01-03
OLD = 1_500_000_000.0  # 2017
FUTURE = 4_100_000_000.0  # 2099
PNG = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" * 8
JPG = "data:image/jpeg;base64," + "/9j/4AAQSkZJRgABAQ" * 12
SEARCH = ["heater", "zebrasecret", "compactword", "tokyo", "delegate", "parchment", "giraffe", "kettle*", "東京", "oldword",
          '"tokyo trip"', "heater OR giraffe", "delegate NOT nested", "deleg*", "🚀", "report", "summary", "segment 2", "walrus"]


def fill_default(db):
    t = [OLD]

    def msg(sid, role, content=None, step=10, **kw):
        t[0] += step
        return db.append_message(sid, role, content, timestamp=t[0], **kw)

    # A compression chain of four segments; the tip is still running.
    titles = ["Plan 東京 🚀", "Plan 東京 🚀 #2", "Plan 東京 🚀 #3", "Plan 東京 🚀 #4"]
    prev = None
    for i, tid in enumerate(["chain-0", "chain-1", "chain-2", "chain-3"]):
        db.create_session(tid, "cli", model="claude-x", parent_session_id=prev)
        db.set_session_title(tid, titles[i])
        msg(tid, "user", f"chain segment {i} about the tokyo trip 東京 🚀")
        msg(tid, "assistant", f"segment {i} noted")
        if i < 3:
            db.end_session(tid, "compression")
        prev = tid

    # Tool calls with large arguments (unicode inside), a result with a NUL byte, reasoning fields.
    db.create_session("big-tools", "cli", model="gpt-x", system_prompt="Système: réponds brièvement ✓")
    msg("big-tools", "user", "write the heater report")
    big = json.dumps({"path": "rapport-été.md", "content": "Heater ✓ ünïcödé 東京 " * 800})
    calls = [
        {"id": "call_a", "type": "function", "function": {"name": "write_file", "arguments": big}},
        {"id": "call_b", "type": "function", "function": {"name": "terminal", "arguments": '{"cmd": "ls -la"}'}},
    ]
    msg("big-tools", "assistant", "", tool_calls=calls, finish_reason="tool_calls", reasoning="two calls",
        reasoning_details=[{"type": "reasoning.text", "text": "plan"}])
    msg("big-tools", "tool", "wrote 1 file", tool_call_id="call_a", tool_name="write_file", token_count=7)
    msg("big-tools", "tool", "binary\x00output parchment", tool_call_id="call_b", tool_name="terminal")
    msg("big-tools", "assistant", "Report written.", finish_reason="stop")
    db.end_session("big-tools", "cli_close")

    # Multimodal: several images in one user message, a dict-shaped part, JSON-looking strings, '' and numbers.
    db.create_session("mm-many", "discord", model="gpt-x", user_id="u7", chat_id="c9", chat_type="dm")
    msg("mm-many", "user", [
        {"type": "text", "text": "compare these giraffe photos"},
        {"type": "image_url", "image_url": {"url": PNG}},
        {"type": "image_url", "image_url": {"url": JPG, "detail": "high"}},
        {"type": "text", "text": "and this one"},
        {"type": "image_url", "image_url": {"url": PNG}},
    ])
    msg("mm-many", "assistant", "Three giraffes.")
    msg("mm-many", "user", {"type": "text", "text": "a lone dict part kettle"})
    msg("mm-many", "user", '{"type": "text", "text": "json-looking object string"}')
    msg("mm-many", "user", "[]")
    msg("mm-many", "user", "")
    msg("mm-many", "assistant", None)
    db.end_session("mm-many", "user_exit")

    # Odd shapes upstream's own code accepts: numbers, an audio part, a lone dict part with an image URL, tool_calls
    # as a dict and as a string (upstream json.dumps it again), reasoning fields, a system row, a broken marker, [].
    db.create_session("odd", "cli")
    msg("odd", "user", 42)
    msg("odd", "user", 3.5)
    msg("odd", "user", [{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
                        {"type": "text", "text": "hear this walrus"}])
    msg("odd", "user", {"type": "image_url", "image_url": {"url": "https://example.com/pic.png"}})
    msg("odd", "assistant", "calling", tool_calls={"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}})
    msg("odd", "assistant", "calling2",
        tool_calls='[{"id": "c2", "type": "function", "function": {"name": "y", "arguments": "{}"}}]')
    msg("odd", "assistant", "thinking", reasoning_details=[{"type": "reasoning.summary", "summary": "s"}],
        codex_reasoning_items=[{"id": "r1"}], reasoning_content="rc walrus")
    msg("odd", "system", "system note walrus")
    msg("odd", "user", "\x00json:{broken")
    msg("odd", "user", [])
    db.end_session("odd", "cli_close")

    # Compaction in place: compacted rows stay searchable upstream (active=0, compacted=1); then a rewind.
    db.create_session("compact", "cli")
    msg("compact", "user", "compactword early detail")
    msg("compact", "assistant", "early answer")
    db.archive_and_compact("compact", [
        {"role": "user", "content": "summary of earlier turns", "timestamp": t[0] + 1},
    ])
    t[0] += 5
    target = msg("compact", "user", "my zebrasecret is 1234")
    msg("compact", "assistant", "stored zebrasecret")
    db.rewind_to_message("compact", target)
    msg("compact", "user", "never mind")
    db.end_session("compact", "cli_close")

    # An old ended parent with delegate children: one live, one ended recently (outside a 30-day prune),
    # one ended and old (inside), and a nested delegate grandchild; plus a branch child.
    db.create_session("old-parent", "cli")
    msg("old-parent", "user", "orchestrate the heater delegate work")
    db.end_session("old-parent", "cli_close")
    for cid, live in (("dg-live", True), ("dg-recent", False), ("dg-old", False)):
        db.create_session(cid, "cli", parent_session_id="old-parent", model_config={"_delegate_from": "old-parent"})
        msg(cid, "user", f"delegate task {cid}")
        if not live:
            db.end_session(cid, "completed")
    db.create_session("dg-grand", "cli", parent_session_id="dg-live", model_config={"_delegate_from": "dg-live"})
    msg("dg-grand", "user", "nested delegate work")
    db.end_session("dg-grand", "completed")
    db.create_session("br-old", "cli", parent_session_id="old-parent", model_config={"_branched_from": "old-parent"})
    msg("br-old", "user", "a branch of the old parent")
    db.end_session("br-old", "cli_close")

    # Running, never ended, very old; zero-message sessions (titled and not); a future one; clock regression.
    db.create_session("live-old", "cli")
    msg("live-old", "user", "still running since long ago oldword")
    db.create_session("empty-titled", "cli")
    db.set_session_title("empty-titled", "ملاحظات فارغة")
    db.end_session("empty-titled", "cli_close")
    db.create_session("empty-bare", "api")
    db.create_session("future", "cli")
    db.append_message("future", "user", "a message from 2099 heater", timestamp=FUTURE + 10)
    db.end_session("future", "cli_close")
    db.create_session("ancient", "cli")
    db.append_message("ancient", "user", "1970 oldword", timestamp=ANCIENT + 5)
    db.append_message("ancient", "assistant", "clock went backwards", timestamp=ANCIENT + 1)
    db.end_session("ancient", "cli_close")
    db.create_session("shared-id", "cli")
    msg("shared-id", "user", "default profile copy of a shared id")
    db.end_session("shared-id", "cli_close")
    db.create_session("arch", "cli")
    msg("arch", "user", "archived kettle talk")
    db.end_session("arch", "cli_close")
    db.set_session_archived("arch", True)

    # Continued later: a session that started first but got the newest message (list order is last activity).
    msg("old-parent", "user", "late follow-up on the old parent", step=100_000)
    db.close()


def fill_work(db):
    db.create_session("shared-id", "telegram", model="gpt-y", user_id="u1")
    db.set_session_title("shared-id", "Work copy ✈️")
    db.append_message("shared-id", "user", "work profile heater question", timestamp=OLD + 50)
    db.append_message("shared-id", "assistant", "work answer", timestamp=OLD + 60)
    db.end_session("shared-id", "user_exit")
    db.create_session("work-mm", "telegram")
    db.append_message("work-mm", "user", [{"type": "image_url", "image_url": {"url": PNG}}], timestamp=OLD + 70)
    db.close()


def fix_times(path, starts):
    conn = sqlite3.connect(path)
    for sid, (start, end) in starts.items():
        conn.execute("UPDATE sessions SET started_at = ?, ended_at = CASE WHEN ended_at IS NULL THEN NULL ELSE ? END WHERE id = ?", (start, end, sid))
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def view(db):
    out = {}
    for (sid,) in db._conn.execute("SELECT id FROM sessions ORDER BY id").fetchall():
        s = db.get_session(sid)
        out[sid] = {"session": s, "messages": db.get_messages(sid, include_inactive=True)}
    return out


def fts_check(path):
    conn = sqlite3.connect(path)
    res = {}
    for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"):
        try:
            conn.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')")
            res[t] = "ok"
        except sqlite3.DatabaseError as e:
            res[t] = str(e)
    res["integrity_check"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
    conn.close()
    return res


def hits(db, q):
    return sorted({h["session_id"] for h in db.search_messages(q, limit=1000)})


def after(d, path):
    rows = d._conn.execute("SELECT s.id, s.parent_session_id, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s ORDER BY s.id")
    return {
        "sessions": {r[0]: {"parent": r[1], "messages": r[2]} for r in rows},
        "search": {q: hits(d, q) for q in SEARCH},
        "fts": fts_check(path),
    }


PRUNES = {
    "older30": {"older_than_days": 30},
    "older30-cli-min2": {"older_than_days": 30, "source": "cli", "min_messages": 2},
    "title-plan": {"older_than_days": None, "title_like": "東京"},
    "archived-only": {"older_than_days": 30, "archived": True},
    "chat-dm": {"older_than_days": 30, "chat_type": "dm", "chat_id": "c9"},
    "branch-none": {"older_than_days": 30, "branch_like": "main"},
}


def answers(path, tmp):
    db = hs.SessionDB(path)
    listing = [r["id"] for r in db.list_sessions_rich(order_by_last_active=True, limit=1000)]
    listing_children = [r["id"] for r in db.list_sessions_rich(order_by_last_active=True, include_children=True, limit=1000)]
    res = {
        "sqlite": sqlite3.sqlite_version,
        "view": view(db),
        "export_all": db.export_all(),
        "lineage": {sid: db.export_session_lineage(sid) for sid in ("chain-1", "chain-3", "old-parent", "empty-bare") if db.get_session(sid)},
        "list": listing,
        "list_children": listing_children,
        "search": {q: hits(db, q) for q in SEARCH},
        "fts": fts_check(path),
    }
    db.close()
    for sid in ("old-parent", "chain-1", "big-tools", "shared-id", "mm-many", "compact", "dg-live", "chain-3", "work-mm"):
        p = tmp / f"del-{sid}.db"
        shutil.copy(path, p)
        d = hs.SessionDB(p)
        if d.get_session(sid) is None:
            d.close()
            continue
        res.setdefault("delete", {})[sid] = {"result": d.delete_session(sid), **after(d, p)}
        d.close()
    for name, kw in PRUNES.items():
        p = tmp / f"prune-{name}.db"
        shutil.copy(path, p)
        d = hs.SessionDB(p)
        kw = dict(kw)
        days = kw.pop("older_than_days")
        cand = [r["id"] for r in d.list_prune_candidates(older_than_days=days, **kw)]
        res.setdefault("prune", {})[name] = {"candidates": cand, "result": d.prune_sessions(older_than_days=days, **kw), **after(d, p)}
        d.close()
    # upstream's import of the default profile's export into this home (ids it already has are skipped)
    p = tmp / "import-into.db"
    shutil.copy(path, p)
    d = hs.SessionDB(p)
    r = d.import_sessions(json.loads(json.dumps(DEFAULT_EXPORT)))
    res["import_default_export"] = {"result": {k: v for k, v in r.items() if not k.endswith("_ids")}, "view": view(d), **after(d, p)}
    d.close()
    return res


DEFAULT_EXPORT = []


def main():
    tmp = temp_dir("golden-db-")
    home = tmp / "home"
    (home / "profiles" / "work").mkdir(parents=True)
    fill_default(hs.SessionDB(home / "state.db"))
    fill_work(hs.SessionDB(home / "profiles" / "work" / "state.db"))
    day = 86_400.0
    starts = {sid: (OLD + i * 1000, OLD + i * 1000 + 500) for i, sid in enumerate(
        ["chain-0", "chain-1", "chain-2", "chain-3", "big-tools", "mm-many", "compact", "old-parent", "dg-old",
         "dg-grand", "br-old", "shared-id", "arch", "empty-titled", "live-old", "dg-live", "odd"])}
    # "Recent" must stay recent whenever the tests run: the far future is never older than any prune window.
    starts["dg-recent"] = (FUTURE - 5 * day, FUTURE - 4 * day)
    starts["future"] = (FUTURE, FUTURE + 50)
    starts["empty-bare"] = (FUTURE + 100, FUTURE + 100)
    starts["ancient"] = (ANCIENT, ANCIENT + 10)
    fix_times(home / "state.db", starts)
    fix_times(home / "profiles" / "work" / "state.db", {"shared-id": (OLD + 40, OLD + 70), "work-mm": (OLD + 65, OLD + 80)})

    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    shutil.copytree(home, OUT / "home")
    result = {
        "upstream_commit": "9a75ff049b020ab5b24f76892f50f59064811028",
    }
    d = hs.SessionDB(home / "state.db")
    DEFAULT_EXPORT.extend(d.export_all())
    d.close()
    result["default"] = answers(home / "state.db", tmp)
    result["work"] = answers(home / "profiles" / "work" / "state.db", tmp)
    (OUT / "upstream.json").write_text(json.dumps(result, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")

    # Caduceus's export of each profile, then upstream's import of it into an empty home, read back upstream's way.
    back_all = {}
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(tmp / "logs")}
    for prof in ("default", "work"):
        cad = tmp / f"cad-{prof}"
        shutil.copytree(OUT / "home", cad)
        exp = subprocess.run(["node", "bin/caduceus.mjs", "sessions", "export", "--profile", prof, "--home", str(cad)],
                             cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
        (OUT / f"caduceus-export-{prof}.jsonl").write_text(exp, encoding="utf-8")
        p = tmp / f"back-{prof}.db"
        back = hs.SessionDB(p)
        r = back.import_sessions([json.loads(line) for line in exp.splitlines() if line.strip()])
        back_all[prof] = {"import": {k: v for k, v in r.items() if not k.endswith("_ids")}, "view": view(back), **after(back, p)}
        back.close()
    (OUT / "caduceus-through-upstream.json").write_text(json.dumps(back_all, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")


if __name__ == "__main__":
    main()
