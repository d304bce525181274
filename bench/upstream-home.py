#!/usr/bin/env python3
"""An untouched upstream (v21) home for the bench, written by upstream's own code (issue #22).

  python3 bench/upstream-home.py HOME_DIR [SESSIONS] [MESSAGES_PER_SESSION]

`SessionDB` creates the schema, FTS tables and triggers with upstream's SQLite; sessions and messages are then
inserted in bulk through its connection (its triggers index every row), shaped like the Caduceus bulk demo.
Prints {"sessions": n, "messages": m} when done.
"""
import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
import hermes_state as hs  # noqa: E402

home = Path(sys.argv[1])
sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
per = int(sys.argv[3]) if len(sys.argv) > 3 else 50
home.mkdir(parents=True, exist_ok=True)
db = hs.SessionDB(home / "state.db")
conn = db._conn
rng = random.Random(7)
words = (
    "agent session deploy review latency index query memory budget migrate schema profile cache token retry "
    "network parser vector search summary billing incident report plan draft trace metric queue worker cluster"
).split()
cjk = ["数据库的索引需要重建", "東京の会議は明日です", "日本語の検索テスト", "服务器部署完成了", "缓存命中率很高"]
now = 1796083200
conn.execute("BEGIN IMMEDIATE")
n_msg = 0
for i in range(sessions):
    started = now - (sessions - i) * 60
    sid = f"u{started}_{i:06d}"
    conn.execute(
        "INSERT INTO sessions (id, source, model, started_at, ended_at, end_reason, message_count, tool_call_count,"
        " input_tokens, output_tokens, title, api_call_count) VALUES (?, ?, 'demo-model', ?, ?, 'cli_close', ?, ?, ?, ?, ?, ?)",
        (sid, rng.choice(["cli", "tui", "desktop", "telegram"]), started, started + per * 5, per, per // 4,
         per * 300, per * 80, f"{rng.choice(words)} {rng.choice(words)} {i}" if rng.random() < 0.8 else None,
         (per + 1) // 2),
    )
    rows = []
    for m in range(per):
        role = "user" if m % 4 == 0 else "tool" if m % 4 == 2 else "assistant"
        text = " ".join(rng.choice(words) for _ in range(rng.randint(6, 18)))
        if (i * per + m) % 16 == 5:
            text = f"{rng.choice(cjk)} {text}"
        if (i * per + m) % 97 == 11:
            text = f"🚀 {text}"
        call = f"call_{i}_{m}" if role == "assistant" else None
        rows.append((
            sid, role, text,
            json.dumps([{"id": call, "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]) if call else None,
            f"call_{i}_{m - 1}" if role == "tool" else None,
            "terminal" if role == "tool" else None,
            started + m * 5,
        ))
    conn.executemany(
        "INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    n_msg += per
    if i % 200 == 199:
        conn.execute("COMMIT")
        conn.execute("BEGIN IMMEDIATE")
conn.execute("COMMIT")
db.close()
print(json.dumps({"sessions": sessions, "messages": n_msg}))
