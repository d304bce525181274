#!/usr/bin/env python3
"""Golden homes for search completeness (issue #22 item 4): CJK, emoji and symbol text in the rows upstream's v30
trigram index leaves out (tool output, cron and subagent sessions, delegated children) and in tool-call JSON.

Both homes hold the same sessions and rows (a seeded mix of pieces such as 北京 / 北京大学, テスト / テストケース,
$ / $100, 🚀, C++, in user, assistant and tool rows, with tool names and tool calls), so a test can compare what
Caduceus finds with a plain substring check over the text each home's own index holds:
  v21.db  written by upstream's own SessionDB (the v21 fork, HERMES_UPSTREAM, default /work/upstream): inline word
          and trigram indexes over content || ' ' || tool_name || ' ' || tool_calls, every row.
  v30.db  upstream's current DDL (HERMES_NOUS, default /tmp/nous: hermes_state_common's SCHEMA_SQL,
          DEFERRED_INDEX_SQL, FTS_SQL, FTS_TRIGRAM_SQL), rows inserted with the columns upstream's writer fills, so its
          FTS triggers index them: the trigram index over messages_fts_trigram_src (content, tool_name; no tool
          rows, no cron/subagent/delegated sessions).

Two more v30 homes hold the states upstream's FTS markers in state_meta describe (hermes-spec §1.3, "FTS sync
triggers" and `state_meta`). The fork at HERMES_UPSTREAM is v21 and has neither, so they are built from v30.db's rows
with SQL that spec gives, each step named below:
  v30-rebuild.db  in the middle of upstream's deferred FTS rebuild: both indexes emptied, fts_rebuild_high_water = the
                  newest id then (180), fts_rebuild_progress = 100 after a first backfill of ids 1..100 from the
                  indexes' own source views; then upstream appends one message (181), which its gated triggers index.
                  Rows 101..180 are in neither index (the gate: indexed iff id > high_water or id <= progress).
  v30-stale.db    after upstream gave up on a broken index: fts_stale = '1' and its six FTS sync triggers dropped;
                  then upstream appends a message, rewrites one row's content in place and deletes another, none of
                  which reaches the indexes.

Run with the system Python (its SQLite is the one that indexes upstream homes on this machine):
  /usr/bin/python3 scripts/golden/search_complete.py
"""
import json
import os
import random
import sqlite3
import sys
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
NOUS = os.environ.get("HERMES_NOUS", "/tmp/nous")
sys.path.insert(0, UPSTREAM)
import hermes_state as hs  # noqa: E402

sys.path.insert(0, NOUS)
import hermes_state_common as common  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "search-complete"
T0 = 1764579600.0  # 2025-12-01T09:00:00Z
PIECES = ["北京", "北京大学", "北京大学的图书馆", "テスト", "テストケース", "$", "$100", "$1000 budget", "東京タワー",
          "🚀", "🚀🚀 launch", "C++", "plain words", "大学", "price: 100", "ケース"]
TOOL_NAMES = ["terminal", "テスト実行", "web_search", None]
SOURCES = ["cli", "telegram", "cron", "subagent", "cli", "tui"]


def rows():
    """The sessions and their messages, the same for both homes."""
    rnd = random.Random(22)
    sessions = []
    for i in range(36):
        sid = f"s{i:02d}"
        source = SOURCES[i % len(SOURCES)]
        config = None
        parent = None
        if i % 7 == 5:  # a delegated child of the session before it
            parent = f"s{i - 1:02d}"
            config = {"_delegate_from": parent}
            source = "cli"
        msgs = []
        for j in range(rnd.randint(3, 8)):
            role = rnd.choice(["user", "assistant", "tool", "tool"])
            text = (" " if rnd.random() < 0.5 else "").join(rnd.sample(PIECES, rnd.randint(1, 3)))
            tool_name = rnd.choice(TOOL_NAMES) if role == "tool" else None
            calls = None
            if role == "assistant" and rnd.random() < 0.5:
                arg = rnd.choice(["echo $100", "テスト", "北京大学", "cost $", "ls", "🚀"])
                calls = [{"id": f"c{i}_{j}", "type": "function",
                          "function": {"name": "terminal", "arguments": json.dumps({"cmd": arg}, ensure_ascii=False)}}]
            msgs.append((role, text, tool_name, calls))
        sessions.append((sid, source, parent, config, msgs))
    return sessions


def v21(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    db = hs.SessionDB(path)
    for sid, source, parent, config, msgs in rows():
        kw = {"parent_session_id": parent} if parent else {}
        if config:
            kw["model_config"] = config
        db.create_session(sid, source, **kw)
        for role, text, tool_name, calls in msgs:
            db.append_message(sid, role, text, tool_name=tool_name, tool_calls=calls)
    db.close()


def v30(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(common.SCHEMA_SQL)
    db.executescript(common.DEFERRED_INDEX_SQL)
    db.executescript(common.FTS_SQL)
    db.executescript(common.FTS_TRIGRAM_SQL)
    db.execute("INSERT INTO schema_version(version) VALUES (?)", (common.SCHEMA_VERSION,))
    db.execute("INSERT INTO state_meta(key, value) VALUES ('fts_storage_version', ?)", (str(common.FTS_STORAGE_VERSION),))
    at = T0
    for n, (sid, source, parent, config, msgs) in enumerate(rows()):
        db.execute(
            "INSERT INTO sessions(id, source, parent_session_id, model_config, started_at, message_count) VALUES (?, ?, ?, ?, ?, ?)",
            (sid, source, parent, json.dumps(config) if config else None, at, len(msgs)),
        )
        for k, (role, text, tool_name, calls) in enumerate(msgs):
            at += 1
            db.execute(
                "INSERT INTO messages(session_id, role, content, tool_name, tool_calls, timestamp, message_uid) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, role, text, tool_name, json.dumps(calls) if calls else None, at, f"{n:04d}{k:04d}".ljust(32, "0")),
            )
    db.close()


FTS_TRIGGERS = ("messages_fts_insert", "messages_fts_delete", "messages_fts_update",
                "messages_fts_trigram_insert", "messages_fts_trigram_delete", "messages_fts_trigram_update")


def v30_rebuild(path: Path) -> None:
    v30(path)
    db = sqlite3.connect(path, isolation_level=None)
    # a deferred rebuild starts from empty indexes, with the newest id as its high water and no progress
    db.execute("INSERT INTO messages_fts(messages_fts) VALUES('delete-all')")
    db.execute("INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('delete-all')")
    db.execute("INSERT INTO state_meta(key, value) SELECT 'fts_rebuild_high_water', CAST(MAX(id) AS TEXT) FROM messages")
    db.execute("INSERT INTO state_meta(key, value) VALUES ('fts_rebuild_progress', '0')")
    # a first backfill step: ids 1..100 from each index's own source view, then the progress marker moves
    db.execute("INSERT INTO messages_fts(rowid, content, tool_name, tool_calls) "
               "SELECT id, content, tool_name, tool_calls FROM messages_fts_src WHERE id > 0 AND id <= 100")
    db.execute("INSERT INTO messages_fts_trigram(rowid, content, tool_name) "
               "SELECT id, content, tool_name FROM messages_fts_trigram_src WHERE id > 0 AND id <= 100")
    db.execute("UPDATE state_meta SET value = '100' WHERE key = 'fts_rebuild_progress'")
    # upstream keeps writing meanwhile: a row past the high water is indexed by its gated triggers
    db.execute(
        "INSERT INTO messages(session_id, role, content, timestamp, message_uid) VALUES ('s00', 'user', ?, ?, ?)",
        ("after the rebuild began: 北京 launch", T0 + 5000, "9".ljust(32, "0")),
    )
    db.close()


def v30_stale(path: Path) -> None:
    v30(path)
    db = sqlite3.connect(path, isolation_level=None)
    # upstream's answer to an index it could not repair: a durable stale marker, its sync triggers detached
    db.execute("INSERT INTO state_meta(key, value) VALUES ('fts_stale', '1')")
    for name in FTS_TRIGGERS:
        db.execute(f"DROP TRIGGER IF EXISTS {name}")
    # writes meanwhile reach no index: an append, an in-place rewrite, a delete
    db.execute(
        "INSERT INTO messages(session_id, role, content, timestamp, message_uid) VALUES ('s00', 'user', ?, ?, ?)",
        ("written while stale: 北京 launch", T0 + 5000, "9".ljust(32, "0")),
    )
    db.execute("UPDATE messages SET content = 'rewritten while stale: quokka 上海' WHERE id = 2")
    db.execute("DELETE FROM messages WHERE id = 3")
    db.close()


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    v21(OUT / "v21.db")
    v30(OUT / "v30.db")
    v30_rebuild(OUT / "v30-rebuild.db")
    v30_stale(OUT / "v30-stale.db")
    for name in ("v21.db", "v30.db", "v30-rebuild.db", "v30-stale.db"):
        db = sqlite3.connect(OUT / name)
        n = db.execute("SELECT count(*) FROM messages").fetchone()[0]
        left = db.execute("SELECT count(*) FROM messages WHERE id NOT IN (SELECT rowid FROM messages_fts_trigram)").fetchone()[0]
        db.execute("PRAGMA journal_mode=DELETE")
        db.close()
        print(f"{name}: {n} messages, {left} not in its trigram index")
