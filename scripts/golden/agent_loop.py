"""Golden home written by upstream Hermes's real agent loop, end to end.

Runs upstream's own AIAgent (run_agent.py, constructed as hermes_cli/oneshot.py builds it for `hermes chat -q`:
provider "custom", base_url, api_key, model, enabled_toolsets, platform "cli", SessionDB()) against a local
scripted OpenAI-compatible server (stdlib http.server; chat.completions, streamed as SSE because upstream's
client asks for `stream: true`). Conversations, one session each:
- tools: terminal `echo`, write_file, then read_file + patch in one parallel call, search_files, and a final
  reply carrying reasoning;
- fail: a read_file of a missing file and a terminal command exiting 3, then a reply;
- image: a user turn with an image part, a reasoning-only-then-text reply;
- delegate: delegate_task whose child agent (a subagent session linked to its parent) runs its own turn;
- titled: a plain turn, then titled as `/title` does (SessionDB.set_session_title);
- compress: tool rounds whose last reply reports a prompt over the compression threshold (model.context_length
  64000), so upstream compacts (in place, in this version) before its final reply.
The home (state.db, no WAL) is copied to test/fixtures/upstream/agent-loop/ with the scratch dir's absolute
path replaced by /scratch. `golden.json` records what upstream's own SessionDB readers say about it.

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/agent_loop.py
(HERMES_UPSTREAM defaults to /work/upstream; upstream needs the `openai` package, which system Python lacks.)
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "agent-loop"
MODEL = "gpt-4o-mini"
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

home = Path(tempfile.mkdtemp(prefix="caduceus-golden-loop-"))
scratch = home / "scratch"
scratch.mkdir()
os.environ["HERMES_HOME"] = str(home)
os.environ["TERMINAL_CWD"] = str(scratch)
os.environ["HERMES_YOLO_MODE"] = "1"


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def text_of(content):
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


# Each scenario: the replies to its successive model calls (a reply: content, reasoning, tool_calls).
SCRIPTS = {
    "LOOP-TOOLS": [
        {"tool_calls": [call("call_echo", "terminal", {"command": "echo hello-loop"})]},
        {"tool_calls": [call("call_write", "write_file", {"path": f"{scratch}/notes.txt", "content": "alpha\nbeta\n"})]},
        {
            "content": "Reading and patching together.",
            "tool_calls": [
                call("call_read", "read_file", {"path": f"{scratch}/notes.txt"}),
                call("call_patch", "patch", {"mode": "replace", "path": f"{scratch}/notes.txt", "old_string": "beta", "new_string": "gamma"}),
            ],
        },
        {"tool_calls": [call("call_search", "search_files", {"pattern": "gamma", "path": str(scratch)})]},
        {"reasoning": "The file now says alpha and gamma.", "content": "Done: notes.txt holds alpha and gamma."},
    ],
    "LOOP-FAIL": [
        {
            "tool_calls": [
                call("call_missing", "read_file", {"path": f"{scratch}/missing.txt"}),
                call("call_exit", "terminal", {"command": "echo oops >&2; exit 3"}),
            ]
        },
        {"content": "Both failed: the file is missing and the command exited 3."},
    ],
    "LOOP-IMAGE": [{"reasoning": "A single pixel image.", "content": "It is a 1x1 image."}],
    "LOOP-DELEGATE": [
        {"tool_calls": [call("call_deleg", "delegate_task", {"goal": "CHILD-GOAL: count to three", "context": "be brief"})]},
        {"content": "The subagent was dispatched."},
        {"content": "The subagent counted: one two three."},
    ],
    "CHILD-GOAL": [{"content": "one two three"}],
    "LOOP-TITLED": [{"content": "Sure, noted."}],
    # Rounds of calls, then a reply reporting a prompt over the compression threshold (85% of a 64000 window, the
    # floor upstream uses at the minimum context): upstream compacts after that tool round.
    "LOOP-COMPRESS": [
        {"tool_calls": [call(f"call_round{i}", "terminal", {"command": f"echo round-{i}"})]} for i in range(5)
    ]
    + [
        {"tool_calls": [call("call_round5", "terminal", {"command": "echo round-5"})], "prompt_tokens": 60000},
        {"content": "All six rounds ran; the context was compacted on the way."},
    ],
}
SUMMARY = "LOOP-COMPRESS summary: six echo rounds ran in the scratch dir."
STEPS = {}
USAGE = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240, "prompt_tokens_details": {"cached_tokens": 200}}


def reply_for(body):
    msgs = body.get("messages", [])
    users = [i for i, m in enumerate(msgs) if m.get("role") == "user"]
    first = text_of(msgs[users[0]]["content"]) if users else ""
    key = next((k for k in SCRIPTS if k in first), None)
    if not body.get("tools") and key == "LOOP-COMPRESS":  # the compressor's summary call
        return {"content": SUMMARY}
    if key is None:  # an auxiliary call (title generation and the like)
        return {"content": "Scripted title"}
    # Calls of one conversation come one after another: each takes the scenario's next reply.
    step = STEPS[key] = STEPS.get(key, -1) + 1
    script = SCRIPTS[key]
    return script[min(step, len(script) - 1)]


def chunk(delta, finish=None, usage=None):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": MODEL,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        c["usage"] = usage
    return b"data: " + json.dumps(c).encode() + b"\n\n"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if not self.path.endswith("/chat/completions"):
            self.send_response(404)
            self.end_headers()
            return
        r = reply_for(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        out = [chunk({"role": "assistant"})]
        if r.get("reasoning"):
            out.append(chunk({"reasoning_content": r["reasoning"]}))
        if r.get("content"):
            out.append(chunk({"content": r["content"]}))
        for i, tc in enumerate(r.get("tool_calls", [])):
            out.append(chunk({"tool_calls": [{"index": i, **tc}]}))
        out.append(chunk({}, "tool_calls" if r.get("tool_calls") else "stop"))
        usage = {**USAGE, "prompt_tokens": r.get("prompt_tokens", USAGE["prompt_tokens"])}
        out.append(chunk({}, None, usage)[:-2].replace(b'"choices": [{"index": 0, "delta": {}, "finish_reason": null}]', b'"choices": []') + b"\n\n")
        out.append(b"data: [DONE]\n\n")
        self.wfile.write(b"".join(out))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
(home / "config.yaml").write_text(
    f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n"
    "  context_length: 64000\ndelegation:\n  max_iterations: 3\n"
)
sys.path.insert(0, UPSTREAM)

from hermes_state import SessionDB  # noqa: E402
from run_agent import AIAgent  # noqa: E402

db = SessionDB()


def run(message, toolsets):
    agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL, enabled_toolsets=toolsets,
                    quiet_mode=True, platform="cli", session_db=db)
    agent.suppress_status_output = True
    result = agent.run_conversation(message)
    return agent, result


ids = {}
def sid(pair):
    return pair[0].session_id


ids["tools"] = sid(run("LOOP-TOOLS: echo, write notes.txt, patch it and search it", ["terminal", "file"]))
ids["fail"] = sid(run("LOOP-FAIL: read missing.txt and run a failing command", ["terminal", "file"]))
ids["image"] = sid(run([{"type": "text", "text": "LOOP-IMAGE: what is in this picture?"},
                       {"type": "image_url", "image_url": {"url": PNG}}], ["file"]))
parent, parent_result = run("LOOP-DELEGATE: ask a subagent to count to three", ["delegation"])
ids["delegate"] = parent.session_id
ids["titled"] = sid(run("LOOP-TITLED: remember that the meeting is at noon", ["file"]))
db.set_session_title(ids["titled"], "Meeting at noon")  # what `/title Meeting at noon` stores
ids["compress"] = sid(run("LOOP-COMPRESS: run six echo rounds", ["terminal"]))

# The background delegation finishes on upstream's worker thread; wait for its completion row.
con = sqlite3.connect(home / "state.db")
for _ in range(100):
    if not con.execute("SELECT 1 FROM async_delegations WHERE state = 'running'").fetchone():
        break
    threading.Event().wait(0.1)
con.close()

# Upstream's CLI drains the completion after the turn and sends its text as the parent's next input
# (cli.py _drain_process_notifications: claim, queue as pending input, mark delivered).
from tools.async_delegation import claim_event_delivery, complete_event_delivery  # noqa: E402
from tools.process_registry import process_registry  # noqa: E402

delivered = 0
for evt, text in process_registry.drain_notifications(session_key=parent.session_id):
    claim = claim_event_delivery(evt, "cli-post-turn")
    if claim is None:
        continue
    parent.run_conversation(text, conversation_history=parent_result["messages"])
    complete_event_delivery(evt, claim)
    delivered += 1
assert delivered == 1, "the delegation's completion was not delivered to its parent"

# What upstream's own readers say about the home (hermes sessions list / export read these).
rich = db.list_sessions_rich(limit=50, include_children=True)
golden = {
    "ids": ids,
    "list": [{k: r.get(k) for k in ("id", "source", "parent_session_id", "title", "message_count", "tool_call_count",
                                   "input_tokens", "output_tokens", "cache_read_tokens", "preview")} for r in rich],
    "export_messages": {sid: [{k: m.get(k) for k in ("role", "content", "tool_name", "tool_call_id", "reasoning")}
                              for m in db.export_session(sid)["messages"]] for sid in [r["id"] for r in rich]},
}
# How upstream's Markdown export (hermes sessions export --format md) writes each stored timestamp.
from hermes_cli.session_export_md import _iso_timestamp  # noqa: E402

db.close()
con = sqlite3.connect(home / "state.db")
stamps = [r[0] for r in con.execute("SELECT timestamp FROM messages UNION SELECT started_at FROM sessions ORDER BY 1")]
golden["iso_timestamps"] = [[t, _iso_timestamp(t)] for t in stamps]
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
# Scrub the temp home's absolute path (scratch files, system prompts) and drop the bulky system prompts.
for table, col in [("messages", "content"), ("messages", "tool_calls"), ("sessions", "system_prompt"),
                   ("async_delegations", "event_json"), ("async_delegations", "result_json"),
                   ("async_delegations", "task_json"), ("async_delegations", "cwd")]:
    if col not in [r[1] for r in con.execute(f"PRAGMA table_info({table})")]:
        continue
    con.execute(f"UPDATE {table} SET {col} = replace({col}, ?, '/home') WHERE {col} LIKE '%' || ? || '%'",
                (str(home), str(home)))
con.execute("UPDATE sessions SET system_prompt = NULL")
con.commit()
# A copy out of the live file (upstream's background workers may still hold their connections), then compacted.
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "state.db").unlink(missing_ok=True)
out = sqlite3.connect(OUT / "state.db")
con.backup(out)
con.close()
out.execute("PRAGMA journal_mode=DELETE")
out.execute("VACUUM")
out.close()
(OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False).replace(str(home), "/home") + "\n")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps(ids))
