"""Golden: Anthropic extended-thinking blocks in a session upstream wrote, and what upstream sends back on resume.

Upstream keeps an Anthropic reply's thinking blocks (with their signatures; redacted_thinking with its data) on
the assistant message as `reasoning_details`, each block cleaned by agent/anthropic_adapter.py's
_sanitize_replay_block, and its flush (run_agent.py, _flush_messages_to_session_db) writes them with
SessionDB.append_message(reasoning_details=...), i.e. json.dumps of the list. This script writes one session that
way with upstream's own SessionDB — a tool round whose reply carries a signed thinking block, then a final reply with
a signed thinking block and a redacted_thinking block — then resumes it as `hermes --resume` loads it
(get_messages_as_conversation) and records what upstream's Anthropic converter (convert_messages_to_anthropic,
direct api.anthropic.com base URL) makes of that history plus the next user message: the request's `messages`.
(The loop itself is not run: upstream's Anthropic path needs the `anthropic` SDK, which this machine cannot load.)

Output (test/fixtures/upstream/thinking-resume/): state.db (no WAL) and golden.json with `session_id`, the stored
`reasoning_details` texts, the loaded conversation's `reasoning_details`, and upstream's `anthropic_messages`.

Run: /usr/bin/python3 scripts/golden/thinking_resume.py   (HERMES_UPSTREAM defaults to /work/upstream)
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "thinking-resume"
home = Path(tempfile.mkdtemp(prefix="caduceus-golden-thinking-"))
os.environ["HERMES_HOME"] = str(home)
sys.path.insert(0, UPSTREAM)

from agent.anthropic_adapter import _sanitize_replay_block, convert_messages_to_anthropic  # noqa: E402
from hermes_state import SessionDB  # noqa: E402

SID = "20260101_120000_think1"
MODEL = "claude-sonnet-4-5"
# The reply blocks as the SDK's model_dump gives them (output-only fields included, which the sanitizer drops).
ROUND1 = [{"type": "thinking", "thinking": "I should list the directory first.", "signature": "SIG-ROUND-ONE=="}]
FINAL = [
    {"type": "thinking", "thinking": "The listing shows two files.", "signature": "SIG-FINAL-TWO=="},
    {"type": "redacted_thinking", "data": "REDACTED-OPAQUE-DATA"},
]
db = SessionDB()
db.create_session(SID, "cli", model=MODEL)
rows = [
    {"role": "user", "content": "THINK: what is in /tmp/demo?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "toolu_01", "type": "function", "function": {"name": "terminal", "arguments": json.dumps({"command": "ls /tmp/demo"})}}],
        "finish_reason": "tool_calls",
        "reasoning": ROUND1[0]["thinking"],
        "reasoning_details": [_sanitize_replay_block(b) for b in ROUND1],
    },
    {"role": "tool", "content": "a.txt\nb.txt", "tool_call_id": "toolu_01", "tool_name": "terminal"},
    {
        "role": "assistant",
        "content": "It holds a.txt and b.txt.",
        "finish_reason": "stop",
        "reasoning": FINAL[0]["thinking"],
        "reasoning_details": [_sanitize_replay_block(b) for b in FINAL],
    },
]
for m in rows:
    role = m["role"]
    db.append_message(
        session_id=SID,
        role=role,
        content=m.get("content"),
        tool_name=m.get("tool_name"),
        tool_calls=m.get("tool_calls"),
        tool_call_id=m.get("tool_call_id"),
        finish_reason=m.get("finish_reason"),
        reasoning=m.get("reasoning") if role == "assistant" else None,
        reasoning_details=m.get("reasoning_details") if role == "assistant" else None,
    )

loaded = db.get_messages_as_conversation(SID)
_, anthropic_messages = convert_messages_to_anthropic(
    loaded + [{"role": "user", "content": "RESUMED: and now?"}], base_url="https://api.anthropic.com", model=MODEL
)
con = sqlite3.connect(home / "state.db")
stored = [r[0] for r in con.execute("SELECT reasoning_details FROM messages WHERE session_id = ? ORDER BY id", (SID,))]
golden = {
    "session_id": SID,
    "stored_reasoning_details": stored,
    "loaded_reasoning_details": [m.get("reasoning_details") for m in loaded],
    "anthropic_messages": anthropic_messages,
}
db.close()
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
con.commit()
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "state.db").unlink(missing_ok=True)
out = sqlite3.connect(OUT / "state.db")
con.backup(out)
con.close()
out.execute("PRAGMA journal_mode=DELETE")
out.execute("VACUUM")
out.close()
(OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps(golden, indent=1))
