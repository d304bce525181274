#!/usr/bin/env python3
"""Golden data for the rules of `sessions import` (what upstream's import_sessions writes), from upstream's own code.

Run with the system Python (its SQLite 3.40 builds the FTS indexes upstream homes carry on this machine):
  /usr/bin/python3 scripts/golden/import_rules.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/import-rules/:
  input.jsonl    records carrying live runtime state (gateway peer, rewind/compression counters, activity, pins,
                 display columns) and per-message edge shapes (reasoning on a user row, `message_id`, empty and
                 string `tool_calls`, a NUL in `tool_name`, a number or a boolean as content), plus a duplicate
                 id: x (child of p), p, x again
  empty.db       a fresh upstream home (no sessions), for Caduceus to import into
  upstream.json  upstream's import_sessions of input.jsonl (each id once: the first line that has it) into a copy
                 of empty.db: its result, every column of every row it wrote (message ids left out), and the FTS
                 integrity-check of each index
  numbers.jsonl  lines written by hand, not by json.dumps, so each number keeps the spelling a file may have
                 (2.0, 1e3, -0, -0.0, 1.50, 1e999, an int past 2**53 and one past 2**64, NaN): as content, inside the
                 JSON upstream re-dumps (tool_calls, model_config, the reasoning columns) and as a session id
  numbers.json   upstream's import_sessions of each line of numbers.jsonl alone into a copy of empty.db (its
                 import is all or nothing, so one line's failure is that line's): the result, or the exception
                 it raised, and the columns those values land in, with SQLite's storage class of `content`
"""
import json
import shutil
import sqlite3
from pathlib import Path

from golden_setup import temp_dir, upstream_home

upstream_home()
import hermes_state as hs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "import-rules"
T = 1_600_000_000.0

# Columns an exporting machine's live state fills; upstream's import leaves every one at its default.
RUNTIME = {
    "session_key": "agent:main:telegram:dm:42",
    "chat_id": "42",
    "chat_type": "dm",
    "thread_id": "7",
    "display_name": "Alice",
    "origin_json": '{"chat_id": "42"}',
    "expiry_finalized": 1,
    "rewind_count": 3,
    "handoff_state": "pending",
    "handoff_platform": "telegram",
    "handoff_error": "x",
    "compression_failure_cooldown_until": T + 99,
    "compression_failure_error": "overloaded",
    "compression_fallback_streak": 2,
    "compression_ineffective_count": 4,
    "compression_recovery_deadline": T + 98,
    "compression_overload_streak": 5,
    "last_activity_at": T + 5000,
    "last_activity_description": "running a tool",
    "last_activity_provenance": "tool",
    "pinned": 1,
    "hidden": 1,
    "auto_archived": 1,
    "last_read_at": T + 4000,
    "title_source": "auto",
    "created_source": "telegram",
    "profile_name": "work",
    "transport_profile": "relay",
    "tool_names": '["read_file"]',
    "git_metadata_generation": 9,
}
MSG_RUNTIME = {"_compressed_summary": 1, "display_order": 77, "display_kind": "note", "api_content": "api"}


def records():
    gw = {
        "id": "gw",
        "source": "telegram",
        "user_id": "u1",
        "model": "gpt-x",
        "model_config": {"temperature": 0.2},
        "system_prompt": "Be brief.",
        "started_at": T,
        "ended_at": T + 60,
        "end_reason": "agent_close",
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_read_tokens": 5,
        "cache_write_tokens": 6,
        "reasoning_tokens": 7,
        "cwd": "/w",
        "git_branch": "main",
        "git_repo_root": "/w",
        "billing_provider": "openai",
        "billing_base_url": "https://api.example",
        "billing_mode": "api",
        "estimated_cost_usd": 0.01,
        "actual_cost_usd": 0.02,
        "cost_status": "estimated",
        "cost_source": "table",
        "pricing_version": "p1",
        "title": "Gateway chat",
        "api_call_count": 2,
        "archived": False,
        "message_count": 999,
        "tool_call_count": 999,
        **RUNTIME,
        "messages": [
            {"role": "user", "content": "secret plan walrus", "timestamp": T + 1, **MSG_RUNTIME},
            {"role": "assistant", "content": "ok walrus", "timestamp": T + 2, "finish_reason": "stop", **MSG_RUNTIME},
        ],
    }
    edges = {
        "id": "edges",
        "source": "cli",
        "started_at": T + 100,
        "messages": [
            {"role": "user", "content": "user row with reasoning", "timestamp": T + 101, "reasoning": "leak",
             "reasoning_content": "leak2", "reasoning_details": [{"a": 1}], "codex_reasoning_items": [{"b": 2}],
             "codex_message_items": [{"c": 3}], "message_id": "plat-7"},
            {"role": "assistant", "content": "kept", "timestamp": T + 102, "reasoning": "why",
             "reasoning_content": "why2", "reasoning_details": '[{"a":1}]', "codex_reasoning_items": "not json",
             "codex_message_items": [], "platform_message_id": "plat-8", "message_id": "ignored", "observed": True},
            {"role": "assistant", "content": "empty list", "timestamp": T + 103, "tool_calls": []},
            {"role": "assistant", "content": "empty string", "timestamp": T + 104, "tool_calls": ""},
            {"role": "assistant", "content": None, "timestamp": T + 105, "tool_calls": '[{"id": "c1"}]'},
            {"role": "assistant", "content": None, "timestamp": T + 106,
             "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "na\u0000me", "arguments": "{}"}}]},
            {"role": "tool", "content": "tool out walrus", "timestamp": T + 107, "tool_call_id": "c2",
             "tool_name": "na\u0000me", "token_count": 3, "effect_disposition": "applied"},
            {"role": "user", "content": "ünïcode walrus ☃", "timestamp": T + 108, "tool_name": "x\u0000"},
            # content that is a JSON number or boolean: stored as SQLite makes text of the value Python binds
            {"role": "user", "content": 123, "timestamp": T + 109},
            {"role": "user", "content": True, "timestamp": T + 110},
            {"role": "user", "content": 1.5, "timestamp": T + 111},
            {"role": "user", "content": -7, "timestamp": T + 112},
            {"role": "user", "content": False, "timestamp": T + 113},
        ],
    }
    def rec(i, parent=None, **kw):
        return {"id": i, "source": "cli", "started_at": T + 200, "parent_session_id": parent,
                "messages": [{"role": "user", "content": f"msg of {i}", "timestamp": T + 201}], **kw}
    return [gw, edges, rec("x", "p", title="first"), rec("p"), rec("x", title="second")]


# Each line as a file may spell it; upstream's json.loads reads 2.0 and 1e3 as floats, -0 as the int 0.
NUMBER_LINES = [
    '{"id": "nums", "source": "cli", "started_at": 1600000300.0, "input_tokens": 2.0e3, '
    '"model_config": {"temperature": 1.0, "top_p": 1e0, "n": 2, "big": 9007199254740993}, "messages": ['
    + ", ".join(
        '{"role": "user", "content": %s, "timestamp": %d}' % (lit, T + 301 + i)
        for i, lit in enumerate(
            ["2.0", "1e3", "-0", "-0.0", "1.50", "0.1", "0.30000000000000004", "1e15", "1e16", "1e-7",
             "0.00001", "123456789012345.6", "999999999999999.9", "1.7976931348623157e308", "5e-324",
             "9007199254740993", "-9223372036854775808", "1e999", "-1e999", "NaN", "true", "false", "null",
             # where SQLite's extended-precision digits part from a correctly rounded 15: its 15th digit differs
             "4.210296193081385e+210", "3057069747037025.0", "7.771400548145935e-288", "-6.217384746917695e15",
             '{"a": 1.0, "b": [2.0, 1e3, -0.0, 0.5]}', "[]", "{}"]
        )
    )
    + ', {"role": "assistant", "content": "calls", "timestamp": 1600000400.0, "token_count": 3.0, '
    '"tool_calls": [{"id": "n1", "type": "function", "index": 0.0, "function": {"name": "f", "arguments": "{}"}}], '
    '"reasoning_details": "[{\\"a\\": 1.0, \\"b\\": NaN}]", "codex_reasoning_items": [1e3, 2.50], '
    '"codex_message_items": [{"n": -0.0}]}'
    ', {"role": "tool", "content": 7.0, "timestamp": 1600000401.0, "tool_call_id": "n1"}]}',
    '{"id": 42, "source": "cli", "started_at": 1600000500.0, "messages": [{"role": "user", "content": "int id"}]}',
    '{"id": 4.0, "source": "cli", "started_at": 1600000501.0, "messages": [{"role": "user", "content": "float id"}]}',
    '{"id": 1e16, "source": "cli", "started_at": 1600000502.0, "messages": []}',
    '{"id": true, "source": "cli", "started_at": 1600000503.0, "messages": []}',
    '{"id": "huge", "source": "cli", "started_at": 1600000504.0, '
    '"messages": [{"role": "user", "content": 18446744073709551616}]}',
    # counters past 2**53 (kept to the digit), and one past 64 bits (upstream's import fails on it)
    '{"id": "counters", "source": "cli", "started_at": 1600000505.0, "input_tokens": 9007199254740993, '
    '"output_tokens": 1e17, "messages": [{"role": "user", "content": "big", "token_count": 9223372036854775807}]}',
    '{"id": "overflow", "source": "cli", "started_at": 1600000506.0, "input_tokens": 9223372036854775808, '
    '"messages": []}',
    # counters as text Python's int() reads: a sign, spaces around
    '{"id": "signed", "source": "cli", "started_at": 1600000507.0, "input_tokens": "+5", "output_tokens": " 6 ", '
    '"messages": [{"role": "user", "content": "signed", "token_count": " +7 "}]}',
]


def numbers(tmp: Path, empty: Path):
    (OUT / "numbers.jsonl").write_text("".join(line + "\n" for line in NUMBER_LINES), encoding="utf-8")
    results = []
    for n, line in enumerate(NUMBER_LINES):
        path = tmp / f"numbers-{n}.db"
        shutil.copy(empty, path)
        db = hs.SessionDB(path)
        try:
            r = db.import_sessions([json.loads(line)])
            result = {k: r[k] for k in ("ok", "imported", "errors")}
        except Exception as e:  # upstream's import lets a binding error out: the whole import fails
            result = {"raised": f"{type(e).__name__}: {e}"}
        db.close()
        conn = sqlite3.connect(path)
        # counters also as text: a JSON reader may hold an integer past 2**53 only approximately
        sessions = [
            dict(zip(("id", "model_config", "input_tokens", "message_count", "tool_call_count", "tokens_text"), r))
            for r in conn.execute(
                "SELECT id, model_config, input_tokens, message_count, tool_call_count,"
                " input_tokens || ',' || output_tokens FROM sessions ORDER BY id")
        ]
        cols = ("session_id", "role", "content", "content_type", "tool_calls", "token_count", "reasoning_details",
                "codex_reasoning_items", "codex_message_items", "token_count_text")
        messages = [
            dict(zip(cols, r))
            for r in conn.execute(
                "SELECT session_id, role, content, typeof(content), tool_calls, token_count, reasoning_details,"
                " codex_reasoning_items, codex_message_items, CAST(token_count AS TEXT) FROM messages ORDER BY id")
        ]
        conn.close()
        results.append({"line": n + 1, "result": result, "sessions": sessions, "messages": messages})
    out = {"sqlite": sqlite3.sqlite_version, "lines": results}
    (OUT / "numbers.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = temp_dir("golden-import-rules-")
    recs = records()
    (OUT / "input.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")

    empty = tmp / "empty.db"
    hs.SessionDB(empty).close()
    conn = sqlite3.connect(empty)
    conn.execute("VACUUM")
    conn.close()
    shutil.copy(empty, OUT / "empty.db")
    numbers(tmp, empty)

    first, seen = [], set()
    for r in recs:
        if r["id"] not in seen:
            seen.add(r["id"])
            first.append(r)
    db = hs.SessionDB(tmp / "up.db")
    result = db.import_sessions(first)
    db.close()
    conn = sqlite3.connect(tmp / "up.db")
    conn.row_factory = sqlite3.Row
    sessions = {r["id"]: dict(r) for r in conn.execute("SELECT * FROM sessions ORDER BY id")}
    messages = {}
    for r in conn.execute("SELECT * FROM messages ORDER BY id"):
        m = dict(r)
        m.pop("id")
        messages.setdefault(m["session_id"], []).append(m)
    fts = {}
    for t in ("messages_fts", "messages_fts_trigram"):
        try:
            conn.execute(f"INSERT INTO {t}({t}) VALUES('integrity-check')")
            fts[t] = "ok"
        except sqlite3.DatabaseError as e:
            fts[t] = str(e)
    conn.close()
    out = {"sqlite": sqlite3.sqlite_version, "import": {k: result[k] for k in ("ok", "imported", "skipped", "detached", "errors")},
           "sessions": sessions, "messages": messages, "fts": fts}
    (OUT / "upstream.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
