"""Golden turn rows: how upstream Hermes' own agent persists a turn, titles a compression continuation and places
the compression summary.

Usage: /usr/bin/python3 scripts/golden/turn_rows.py   (upstream from $HERMES_UPSTREAM, default /work/upstream)

Writes test/fixtures/upstream/turn-rows/golden.json:
- `flush`: the rows upstream's AIAgent._flush_messages_to_session_db writes (through SessionDB.append_message) for
  a turn: a user message with an image, an assistant tool call with non-ASCII arguments (built by upstream's
  build_assistant_message, its `tool_calls` as it builds them: the OpenAI shape plus the call_id and
  response_item_id keys it writes on every call the model made),
  a tool result, and a final reply with reasoning and an Anthropic thinking block (reasoning_details, cleaned by
  upstream's _sanitize_replay_block as its Anthropic transport cleans it). Columns as stored; ids and timestamps
  left out.
- `titles`: SessionDB.get_next_title_in_lineage over homes holding the listed titles.
- `summary_roles`: ContextCompressor.compress run on message sequences whose only protected head is the system
  prompt (protect_first_n=0, as Caduceus compresses), its summary call and tail cut stubbed: for each kept tail,
  where the summary landed ("user", "assistant", or "merge" when it was merged into the first kept message).
Reads test/fixtures/upstream/turn-rows/case.json (the values test/turn-rows-golden.test.ts scripts its provider with).
"""

import json
import sqlite3
import types
from pathlib import Path

from golden_setup import temp_dir, upstream_home

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "turn-rows"
home = upstream_home("caduceus-golden-turn-")

import run_agent  # noqa: E402
from hermes_state import SessionDB  # noqa: E402
from agent.anthropic_adapter import _sanitize_replay_block  # noqa: E402
from agent.chat_completion_helpers import build_assistant_message  # noqa: E402
from agent.context_compressor import COMPRESSED_SUMMARY_METADATA_KEY, ContextCompressor  # noqa: E402

NS = types.SimpleNamespace
PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
# Shared with test/turn-rows-golden.test.ts (the scripted provider replies with the same values).
CASE = json.loads((OUT / "case.json").read_text())

# ---- flush ----
db = SessionDB(db_path=home / "state.db")
db.create_session("g1", "api_server", model="m")
agent = run_agent.AIAgent.__new__(run_agent.AIAgent)
agent._session_db = db
agent.session_id = "g1"
agent._session_db_created = True
agent.verbose_logging = False
agent.reasoning_callback = None
agent.stream_delta_callback = None
agent._stream_callback = None
agent.provider = "anthropic"
agent.model = "m"
agent.base_url = "http://x"

call = CASE["tool_call"]
first = build_assistant_message(
    agent,
    NS(
        content=None,
        reasoning=CASE["call_reasoning"],
        reasoning_content=None,
        reasoning_details=[_sanitize_replay_block(dict(b)) for b in CASE["call_thinking"]],
        tool_calls=[NS(id=call["id"], type="function", function=NS(name=call["name"], arguments=call["arguments"]))],
    ),
    "tool_calls",
)
final = build_assistant_message(
    agent,
    NS(
        content=CASE["reply"],
        reasoning=CASE["reply_reasoning"],
        reasoning_content=None,
        reasoning_details=[_sanitize_replay_block(dict(b)) for b in CASE["reply_thinking"]],
        tool_calls=None,
    ),
    "stop",
)
messages = [
    {"role": "user", "content": CASE["user_parts"]},
    first,
    {"role": "tool", "content": "tool output", "tool_call_id": call["id"], "tool_name": call["name"]},
    final,
]
agent._flush_messages_to_session_db(messages, [])
COLS = [
    "role", "content", "tool_call_id", "tool_calls", "tool_name", "finish_reason", "reasoning",
    "reasoning_content", "reasoning_details", "codex_reasoning_items", "codex_message_items",
]
con = sqlite3.connect(home / "state.db")
con.row_factory = sqlite3.Row
flush = [{c: r[c] for c in COLS} for r in con.execute(f"SELECT {', '.join(COLS)} FROM messages ORDER BY id")]
counts = dict(con.execute("SELECT message_count, tool_call_count FROM sessions WHERE id = 'g1'").fetchone())

# ---- lineage titles ----
titles = []
for existing, query in [
    ([], "Trip plan"),
    (["Trip plan"], "Trip plan"),
    (["Trip plan", "Trip plan #2"], "Trip plan #2"),
    (["Trip plan", "Trip plan #2", "trip PLAN #7"], "Trip plan"),
    (["100% done_ok", "100X doneXok #5"], "100% done_ok"),
    (["a #2 #3"], "a #2 #3"),
    (["Notes #4"], "Notes #4"),
]:
    tdb = SessionDB(db_path=temp_dir("caduceus-golden-title-") / "state.db")
    for i, t in enumerate(existing):
        tdb.create_session(f"t{i}", "cli")
        tdb.set_session_title(f"t{i}", t)
    titles.append({"existing": existing, "title": query, "next": tdb.get_next_title_in_lineage(query)})
    tdb.close()

# ---- summary role ----
PREFIX = ["user", "assistant", "user", "assistant", "user", "assistant"]
summary_roles = []
for tail in [
    ["user", "assistant"],
    ["assistant", "user"],
    ["assistant", "user", "assistant"],
    ["user"],
    ["assistant", "tool", "assistant"],
    ["assistant", "assistant"],
]:
    roles = PREFIX + tail
    comp = ContextCompressor("m", protect_first_n=0, protect_last_n=2, quiet_mode=True, config_context_length=100000)
    comp._generate_summary = lambda *a, **k: "SUMMARY"
    msgs = [{"role": "system", "content": "sys"}]
    for i, r in enumerate(roles):
        m = {"role": r, "content": f"m{i}"}
        if r == "assistant" and i + 1 < len(roles) and roles[i + 1] == "tool":
            m["tool_calls"] = [{"id": f"c{i}", "type": "function", "function": {"name": "t", "arguments": "{}"}}]
        if r == "tool":
            m["tool_call_id"] = f"c{i - 1}"
        msgs.append(m)
    cut = 1 + len(PREFIX)  # the system prompt, then the summarized prefix
    comp._find_tail_cut_by_tokens = lambda messages, start, *a, _cut=cut, **k: _cut
    out = comp.compress(msgs, current_tokens=90000, force=True)
    placed = None
    for m in out:
        if m.get(COMPRESSED_SUMMARY_METADATA_KEY):
            placed = "merge" if f"m{len(PREFIX)}" in str(m.get("content")) else m["role"]
    summary_roles.append({"tail": tail, "user_survives": "user" in tail, "placement": placed,
                          "out_roles": [m["role"] for m in out]})

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "golden.json").write_text(
    json.dumps({"flush": flush, "counts": counts, "titles": titles, "summary_roles": summary_roles}, indent=2,
               ensure_ascii=False) + "\n"
)
print(f"wrote {OUT / 'golden.json'}")
