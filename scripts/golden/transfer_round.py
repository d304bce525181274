#!/usr/bin/env python3
"""Golden data for the full round trip Caduceus export -> upstream import -> upstream export -> Caduceus import.

Run with the system Python (its SQLite indexes upstream homes on this machine), from a worktree whose
`node bin/caduceus.mjs` runs (npm run build):
  /usr/bin/python3 scripts/golden/transfer_round.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/transfer-round/:
  home.db                       a home upstream's SessionDB wrote: tool calls with reasoning (reasoning, reasoning_content,
                                reasoning_details, codex items), finish reasons, token counts, a multimodal turn, session
                                token counters and cost, a rewound turn (inactive), an in-place compaction (compacted
                                rows), a three-session compression chain with a delegate child on its middle segment and
                                a delegate grandchild still running
  source-view.json              upstream's view of home.db: session rows and get_messages(include_inactive=True)
  caduceus-export.jsonl         hop 1: Caduceus's `sessions export` of home.db
  caduceus-export-lineage.jsonl hop 1 with `--lineage`
  through-upstream.json         hop 2: upstream's import_sessions of each hop-1 file into an empty home, its result and
                                its view of what it stored (as source-view.json)
  upstream-export.jsonl         hop 3: upstream's export_all of the home hop 2 made from caduceus-export.jsonl
  upstream-export-lineage.jsonl hop 3 of the home made from caduceus-export-lineage.jsonl
The test (test/upstream-transfer.test.ts) checks that Caduceus's export of home.db is still hop 1, and imports hop 3
(hop 4) and compares it message by message with hop 2 and the source.
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
OUT = ROOT / "test" / "fixtures" / "upstream" / "transfer-round"
T0 = 1_700_000_000.123456
IMAGE = "data:image/png;base64," + "iVBORw0KGgo" * 10
SESSION_KEYS = ("source", "parent_session_id", "started_at", "ended_at", "end_reason", "message_count", "tool_call_count",
                "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
                "estimated_cost_usd", "api_call_count", "title", "archived", "model_config", "model", "system_prompt",
                "billing_provider", "cost_status", "cwd")
MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "tool_name", "finish_reason", "reasoning",
                "reasoning_content", "reasoning_details", "codex_reasoning_items", "codex_message_items", "token_count",
                "timestamp", "observed", "platform_message_id", "active", "compacted")


def build(path: Path) -> None:
    db = hs.SessionDB(path)
    t = T0

    def msg(sid, role, content=None, **kw):
        nonlocal t
        t += 1.000001
        return db.append_message(sid, role, content, timestamp=t, **kw)

    db.create_session("r-main", "cli", model="claude-x", system_prompt="Be careful.", cwd="/w")
    msg("r-main", "user", "hello reasoning")
    calls = [{"id": "toolu_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'}},
             {"id": "toolu_2", "type": "function", "function": {"name": "terminal", "arguments": '{"cmd": "ls"}'}}]
    msg("r-main", "assistant", "Let me look.", tool_calls=calls, finish_reason="tool_calls", reasoning="think first",
        reasoning_content="raw thinking", reasoning_details=[{"type": "thinking", "thinking": "t", "signature": "sig=="}],
        codex_reasoning_items=[{"id": "rs_1", "encrypted_content": "xyz"}], token_count=55)
    msg("r-main", "tool", "file body", tool_call_id="toolu_1", tool_name="read_file", token_count=3)
    msg("r-main", "tool", "a.txt\nb.txt", tool_call_id="toolu_2", tool_name="terminal")
    msg("r-main", "assistant", "Done.", finish_reason="stop", codex_message_items=[{"type": "message", "id": "m1"}])
    msg("r-main", "user", [{"type": "text", "text": "and this image"}, {"type": "image_url", "image_url": {"url": IMAGE}}])
    msg("r-main", "assistant", "A cat.", finish_reason="length", observed=True, platform_message_id="tg-9")
    target = msg("r-main", "user", "forget this walrus")
    msg("r-main", "assistant", "forgotten walrus")
    db.rewind_to_message("r-main", target)
    db.update_token_counts("r-main", input_tokens=1000, output_tokens=200, cache_read_tokens=300, cache_write_tokens=40,
                           reasoning_tokens=70, estimated_cost_usd=0.25, api_call_count=4, model="claude-x",
                           billing_provider="anthropic", cost_status="estimated")
    db.end_session("r-main", "cli_close")

    db.create_session("r-compact", "cli")
    msg("r-compact", "user", "old question one")
    msg("r-compact", "assistant", "old answer one")
    msg("r-compact", "user", "latest question")
    db.archive_and_compact("r-compact", [
        {"role": "user", "content": "[CONTEXT SUMMARY]:\nthey asked one question", "timestamp": t + 1},
        {"role": "assistant", "content": "ack", "timestamp": t + 2},
        {"role": "user", "content": "latest question", "timestamp": t + 3},
    ])
    t += 5

    db.create_session("k1", "cli")
    db.set_session_title("k1", "Chain")
    msg("k1", "user", "chain one")
    db.end_session("k1", "compression")
    db.create_session("k2", "cli", parent_session_id="k1")
    msg("k2", "user", "chain two")
    db.end_session("k2", "compression")
    db.create_session("k3", "cli", parent_session_id="k2")
    msg("k3", "user", "chain three")
    db.create_session("dk", "cli", parent_session_id="k2", model_config={"_delegate_from": "k2"})
    msg("dk", "user", "sub task")
    msg("dk", "assistant", "sub done", finish_reason="stop")
    db.end_session("dk", "completed")
    db.create_session("dk2", "cli", parent_session_id="dk", model_config={"_delegate_from": "dk"})
    msg("dk2", "user", "grand task")
    db.close()

    conn = sqlite3.connect(path)
    # fixed start and end times (create_session and end_session stamp now)
    conn.execute("UPDATE sessions SET started_at = 1700000000 + rowid * 7.5, "
                 "ended_at = CASE WHEN ended_at IS NULL THEN NULL ELSE 1700000000 + rowid * 7.5 + 3.25 END")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def view(db) -> dict:
    out = {}
    for (sid,) in db._conn.execute("SELECT id FROM sessions ORDER BY id").fetchall():
        s = db.get_session(sid)
        out[sid] = {
            "session": {k: s.get(k) for k in SESSION_KEYS},
            "messages": [{k: m.get(k) for k in MESSAGE_KEYS} for m in db.get_messages(sid, include_inactive=True)],
        }
    return out


def main():
    db = built_db(build, OUT / "home.db")
    tmp = db.parent
    src = hs.SessionDB(db)
    (OUT / "source-view.json").write_text(json.dumps(view(src), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    src.close()

    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(tmp / "logs")}
    cad = tmp / "cad"
    cad.mkdir()
    through = {}
    for name, flags in (("", []), ("-lineage", ["--lineage"])):
        shutil.copy(OUT / "home.db", cad / "state.db")
        for side in ("-wal", "-shm"):
            Path(str(cad / "state.db") + side).unlink(missing_ok=True)
        hop1 = subprocess.run(["node", "bin/caduceus.mjs", "sessions", "export", "-", "--home", str(cad), *flags],
                              cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
        (OUT / f"caduceus-export{name}.jsonl").write_text(hop1, encoding="utf-8")
        up = hs.SessionDB(tmp / f"up{name}.db")
        result = up.import_sessions([json.loads(line) for line in hop1.splitlines() if line.strip()])
        through[name.strip("-") or "plain"] = {
            "import": {k: result[k] for k in ("ok", "imported", "skipped", "detached", "errors")},
            "sessions": view(up),
        }
        with open(OUT / f"upstream-export{name}.jsonl", "w", encoding="utf-8") as f:
            for s in up.export_all():
                f.write(json.dumps(s, ensure_ascii=False) + "\n")
        up.close()
    (OUT / "through-upstream.json").write_text(json.dumps(through, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
