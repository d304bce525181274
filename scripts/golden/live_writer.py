#!/usr/bin/env python3
"""Golden trace of upstream Hermes writing a home, for the cross-process test (test/upstream-live-writer.test.ts).

Run with the system Python (its sqlite3 module is what upstream runs on here):
  /usr/bin/python3 scripts/golden/live_writer.py     # HERMES_UPSTREAM defaults to /work/upstream

For each scenario step it runs the step's operations with upstream's own SessionDB (create_session, append_message,
end_session, delete_session) and records every call upstream's code makes on its connection(s) to the home —
sqlite3.connect's keyword arguments, each execute / executemany / executescript with its SQL and parameters, commit,
rollback, close — by handing sqlite3.connect a recording Connection/Cursor subclass. After the step it records
upstream's own answers on that home: list_sessions_rich(order_by_last_active=True) ids and last_active, and
search_messages session ids per query.

Before writing, it replays the trace onto a fresh path with test/helpers/replay_trace.py (the code the test runs) and
checks after every step that the replayed database equals upstream's table for table (every table in sqlite_master,
FTS shadow tables included), so the trace is complete.

Writes test/fixtures/upstream/live-writer/trace.json.
"""
import json
import os
import platform
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "live-writer"
UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
UPSTREAM_COMMIT = "9a75ff049b020ab5b24f76892f50f59064811028"  # the checkout this trace was recorded from
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="up-home-")  # upstream's module reads it on import
sys.dont_write_bytecode = True  # importing the replay helper must not leave __pycache__ in test/helpers
sys.path.insert(0, UPSTREAM)
sys.path.insert(0, str(ROOT / "test" / "helpers"))
import hermes_state as hs  # noqa: E402
from replay_trace import Replayer  # noqa: E402

T = 1_700_000_000
N = 24


def reorder():
    """Test 1: a session upstream continues rises to the top; a first message dated in the past sinks another."""
    return [
        {
            "ops": [
                ["create", "old"],
                ["append", "old", "user", "first words", T],
                ["create", "mid"],
                ["append", "mid", "user", "middle words", T + 100],
                ["create", "newer"],
                ["append", "newer", "user", "newer words", T + 200],
                ["create", "quiet"],  # no messages: upstream orders it by its start (the recording's now)
            ],
            "queries": [],
        },
        {
            "ops": [
                ["append", "old", "user", "back again"],  # dated now by upstream
                ["append", "quiet", "user", "a late import of an old line", T - 500],
            ],
            "queries": [],
        },
    ]


def rewrite():
    """Test 3: upstream rewrites transcripts (/undo's replace_messages keeps the kept rows' times; clear_messages)."""
    return [
        {
            "ops": [
                ["create", "a"],
                ["append", "a", "user", "question one", T + 10],
                ["append", "a", "assistant", "answer one", T + 20],
                ["append", "a", "user", "question two", T + 30],
                ["append", "a", "assistant", "answer two", T + 40],
                ["create", "b"],
                ["append", "b", "user", "in between", T + 25],
            ],
            "queries": [],
        },
        # /undo: the last exchange goes, the rest is written back with its own times (a's last message: T + 20)
        {"ops": [["undo", "a"]], "queries": []},
        # every message gone: upstream orders a by its start again (the recording's now)
        {"ops": [["clear", "a"]], "queries": []},
    ]


def deep_clear():
    """Test 4: upstream clears a session whose messages are not the newest ones, and deletes one deep in the list."""
    ops = []
    for i in range(6):
        ops += [["create", "d%d" % i], ["append", "d%d" % i, "user", "words %d" % i, T + 10 * i],
                ["append", "d%d" % i, "assistant", "reply %d" % i, T + 10 * i + 5]]
    return [
        {"ops": ops, "queries": []},
        # d1's messages are neither the newest rows nor near the top: nothing written after them says they went;
        # with no message left upstream orders d1 by its start (the recording's now), above every other session
        {"ops": [["clear", "d1"]], "queries": []},
        # d3 deleted whole: its messages go with it, the rest keep their order
        {"ops": [["delete", "d3"]], "queries": []},
    ]


def short_search():
    """Test 2: short CJK / emoji messages, then inserts and deletes while a live host watches."""
    first = []
    for i in range(N):
        first += [["create", "s%d" % i], ["append", "s%d" % i, "user", "会議は東京で %d" % i if i % 2 else "launch 🚀 %d" % i]]
    first += [["create", "plain"], ["append", "plain", "user", "nothing short here"]]
    more = [["delete", "s1"], ["delete", "s2"]]
    for i in range(N, N + 10):
        more += [["create", "s%d" % i], ["append", "s%d" % i, "user", "東京タワー %d" % i if i % 2 else "🚀🚀 %d" % i]]
    return [{"ops": first, "queries": ["東京"]}, {"ops": more, "queries": ["東京"]}]


# ---- recording ---------------------------------------------------------------------------------------------------

_connect = sqlite3.connect
_rec = {"home": None, "calls": None, "conns": 0}


def _record(conn_no, op, run, sql=None, params=None):
    call = {"conn": conn_no, "op": op}
    if sql is not None:
        call["sql"] = sql
    if params is not None:
        call["params"] = params
    _rec["calls"].append(call)
    try:
        return run()
    except sqlite3.Error as exc:
        call["error"] = type(exc).__name__
        raise


def _plain(params):
    """Parameters as JSON keeps them exactly (floats round-trip through repr); anything else stops the recording."""
    if isinstance(params, dict):
        vals = list(params.values())
        out = dict(params)
    else:
        out = list(params)
        vals = out
    for v in vals:
        if v is not None and type(v) not in (str, int, float):
            raise TypeError("parameter of type %s cannot be recorded as JSON" % type(v).__name__)
    return out


class RecordingCursor(sqlite3.Cursor):
    def execute(self, sql, params=()):
        p = _plain(params)
        return _record(self.connection._no, "execute", lambda: super(RecordingCursor, self).execute(sql, params), sql, p)

    def executemany(self, sql, seq):
        rows = [_plain(p) for p in seq]
        return _record(self.connection._no, "executemany", lambda: super(RecordingCursor, self).executemany(sql, rows), sql, rows)

    def executescript(self, sql):
        return _record(self.connection._no, "executescript", lambda: super(RecordingCursor, self).executescript(sql), sql)


class RecordingConnection(sqlite3.Connection):
    # Connection.execute & co. create their cursor through self.cursor() but then run it in C, so each call is
    # recorded once, here; calls on a cursor the code asked for are recorded by RecordingCursor.
    def cursor(self, factory=RecordingCursor):
        return super().cursor(factory)

    def execute(self, sql, params=()):
        return _record(self._no, "execute", lambda: super(RecordingConnection, self).execute(sql, params), sql, _plain(params))

    def executemany(self, sql, seq):
        rows = [_plain(p) for p in seq]
        return _record(self._no, "executemany", lambda: super(RecordingConnection, self).executemany(sql, rows), sql, rows)

    def executescript(self, sql):
        return _record(self._no, "executescript", lambda: super(RecordingConnection, self).executescript(sql), sql)

    def commit(self):
        return _record(self._no, "commit", lambda: super(RecordingConnection, self).commit())

    def rollback(self):
        return _record(self._no, "rollback", lambda: super(RecordingConnection, self).rollback())

    def close(self):
        return _record(self._no, "close", lambda: super(RecordingConnection, self).close())


def recording_connect(database, **kwargs):
    if _rec["home"] is None or str(database) != str(_rec["home"]):
        # upstream's scratch work (an in-memory copy of its schema to read column types) never touches the home
        if str(database) != ":memory:":
            raise RuntimeError("upstream opened an unexpected database: %r" % database)
        return _connect(database, **kwargs)
    if "factory" in kwargs or "uri" in kwargs:
        raise RuntimeError("unexpected sqlite3.connect arguments: %r" % kwargs)
    no = _rec["conns"]
    _rec["conns"] += 1
    _rec["calls"].append({"conn": no, "op": "connect", "kwargs": kwargs})
    conn = _connect(database, factory=RecordingConnection, **kwargs)
    conn._no = no
    return conn


sqlite3.connect = recording_connect


# ---- upstream's writer and reads ---------------------------------------------------------------------------------


def apply(db, ops):
    for op, *a in ops:
        if op == "create":
            db.create_session(a[0], "cli")
        elif op == "append":
            db.append_message(a[0], a[1], a[2], timestamp=a[3] if len(a) > 3 else None)
        elif op == "end":
            db.end_session(a[0], "cli_close")
        elif op == "delete":
            db.delete_session(a[0])
        elif op == "undo":
            # what upstream's /undo writes: the stored conversation minus its last exchange, through replace_messages
            db.replace_messages(a[0], db.get_messages_as_conversation(a[0])[:-2])
        elif op == "clear":
            db.clear_messages(a[0])
        else:
            raise ValueError(op)


def answers(db, queries):
    rows = db.list_sessions_rich(order_by_last_active=True, limit=1000)
    return {
        "list": [r["id"] for r in rows],
        "last_active": {r["id"]: r["last_active"] for r in rows},
        "search": {q: sorted({h["session_id"] for h in db.search_messages(q, limit=1000)}) for q in queries},
    }


def tables(path):
    """Every table's rows (sorted), every schema entry, the journal mode: what a replay must reproduce."""
    conn = _connect("file:%s?mode=ro" % path, uri=True)
    try:
        master = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        out = {"sqlite_master": master, "journal_mode": conn.execute("PRAGMA journal_mode").fetchone()[0]}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"):
            out[name] = sorted(conn.execute('SELECT * FROM "%s"' % name.replace('"', '""')).fetchall(), key=repr)
        return out
    finally:
        conn.close()


def record(name, steps, work):
    home = work / name / "state.db"
    copy = work / name / "replayed.db"
    home.parent.mkdir(parents=True)
    _rec.update(home=home, conns=0)
    replayer = Replayer()
    db = None
    for step in steps:
        _rec["calls"] = step["calls"] = []
        if db is None:
            db = hs.SessionDB(home)
        apply(db, step["ops"])
        _rec["calls"] = []  # upstream's reads below are answers, not part of the replay
        step["answer"] = answers(db, step["queries"])
        if _rec["calls"] and any(c["op"] not in ("execute",) or not c["sql"].lstrip().upper().startswith(("SELECT", "WITH")) for c in _rec["calls"]):
            raise RuntimeError("upstream's reads wrote to the home: %r" % _rec["calls"])
        sqlite3.connect = _connect  # the replay opens its own path with the plain module, as the test's child does
        try:
            replayer.apply(str(copy), step["calls"])
        finally:
            sqlite3.connect = recording_connect
        if tables(home) != tables(copy):
            raise RuntimeError("%s: the replay of step %d differs from upstream's database" % (name, steps.index(step)))
        del step["queries"]
    _rec["home"] = None
    return {"steps": steps}


def main():
    work = Path(tempfile.mkdtemp(prefix="live-writer-"))
    try:
        scenarios = {"reorder": record("reorder", reorder(), work), "short-search": record("short-search", short_search(), work),
                     "rewrite": record("rewrite", rewrite(), work), "deep-clear": record("deep-clear", deep_clear(), work)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(os.environ["HERMES_HOME"], ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {
        "upstream_commit": UPSTREAM_COMMIT,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "scenarios": scenarios,
    }
    (OUT / "trace.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print("wrote", OUT / "trace.json", {k: [len(s["calls"]) for s in v["steps"]] for k, v in scenarios.items()})


if __name__ == "__main__":
    main()
