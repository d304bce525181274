"""Golden: upstream Hermes's agent loop on replies cut short — a stream dropped mid-reply, or cut by the output cap.

Runs upstream's own AIAgent (run_agent.py, built as hermes_cli/oneshot.py builds it: provider "custom", base_url,
model, the terminal toolset, platform "cli", SessionDB()) against a local scripted OpenAI-compatible server. Each
scenario's replies are fixed SSE bodies; a `drop` reply is sent with a Content-Length larger than the body and the
socket is then shut, so the client sees the connection die mid-body (httpx: "peer closed connection without
sending complete message body"). Each agent has a stream consumer, as an interactive front end has (Caduceus always
streams to its window). One session per scenario:
- text_drop: some text, then the connection drops; the next reply finishes.
- always_drop: every reply drops after some text.
- early_drop: the first reply drops before any text; the next one finishes.
- early_always: every reply drops before any text (the seconds between its requests are kept as `gaps`).
- tool_drop: text and a tool call whose arguments are cut by the drop, every time.
- length: every reply ends with finish_reason "length".
- length_tool: a length-cut reply, then a continuation that calls a tool, then a final reply.
- clean_no_done: text, then the body ends normally with no finish_reason and no [DONE].
- clean_tool_whole: text and a whole tool call, the body ending normally with neither; then a final reply.
Output: test/fixtures/upstream/stream-cutoff/golden.json — per scenario the replies (so a test can replay the same
bytes), how many requests upstream made, the rows it stored (role, content, finish_reason; user rows upstream
wrote itself become `[continuation request]`, its note on a cut tool call `[note]`) and its result (final_response,
completed, partial, error).

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/stream_cutoff.py
(HERMES_UPSTREAM defaults to /work/upstream; upstream needs the `openai` package, which system Python lacks.)
"""
import json
import os
import re
import shutil
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "stream-cutoff"
MODEL = "gpt-4o-mini"
home = Path(tempfile.mkdtemp(prefix="caduceus-golden-cutoff-"))
os.environ["HERMES_HOME"] = str(home)
os.environ["HERMES_YOLO_MODE"] = "1"


def chunk(delta, finish=None):
    c = {"id": "c1", "object": "chat.completion.chunk", "created": 1767225600, "model": MODEL,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(c) + "\n\n"


def whole(text, finish="stop"):
    return {"body": chunk({"content": text}) + chunk({}, finish) + "data: [DONE]\n\n", "drop": False}


def cut(body):
    return {"body": body, "drop": True}


TOOL = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": ""}}
SCENARIOS = {
    "text_drop": [cut(chunk({"role": "assistant"}) + chunk({"content": "Part one, "})), whole("part two.")],
    "always_drop": [cut(chunk({"content": f"Attempt {n}. "})) for n in range(1, 13)],
    "early_drop": [cut(chunk({"role": "assistant"})), whole("Fine now.")],
    "early_always": [cut(chunk({"role": "assistant"}))],
    "tool_drop": [cut(chunk({"content": "Running. "}) + chunk({"tool_calls": [TOOL]})
                      + chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"command\":"}}]}))],
    "length": [whole(f"Cap part {n}. ", "length") for n in range(1, 13)],
    # the body ends normally (the whole Content-Length sent) with no finish_reason and no [DONE]
    "clean_no_done": [{"body": chunk({"role": "assistant"}) + chunk({"content": "Half a repl"}), "drop": False}],
    "clean_tool_whole": [
        {"body": chunk({"content": "Running. "})
         + chunk({"tool_calls": [{**TOOL, "function": {"name": "terminal", "arguments": "{\"command\":\"echo hi\"}"}}]}),
         "drop": False},
        whole("Done."),
    ],
    "length_tool": [
        whole("Cap part 1. ", "length"),
        {"body": chunk({"content": "Cap part 2. "})
         + chunk({"tool_calls": [{**TOOL, "function": {"name": "terminal", "arguments": "{\"command\":\"echo hi\"}"}}]})
         + chunk({}, "tool_calls") + "data: [DONE]\n\n", "drop": False},
        whole("Final words."),
    ],
}
HITS = {}
AT = {}


def masked(text):
    """Upstream's note on a part whose tool call was cut (its own wording) becomes `[note]`."""
    return re.sub(r"\n\n\u26a0 Stream stalled mid tool-call.*?continue\.", "\n\n[note]", text) if text else text


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        first = next((m for m in body.get("messages", []) if m.get("role") == "user"), {})
        name = next((k for k in SCENARIOS if f"CUTOFF-{k}:" in json.dumps(first.get("content"))), None)
        if name is None:  # an auxiliary call (title generation and the like)
            reply = whole("Scripted title")
        else:
            HITS[name] = HITS.get(name, 0) + 1
            AT.setdefault(name, []).append(time.monotonic())
            replies = SCENARIOS[name]
            reply = replies[min(HITS[name], len(replies)) - 1]
        data = reply["body"].encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data) + (5000 if reply["drop"] else 0)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        if reply["drop"]:
            time.sleep(0.05)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
(home / "config.yaml").write_text(f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n")
sys.path.insert(0, UPSTREAM)

from hermes_state import SessionDB  # noqa: E402
from run_agent import AIAgent  # noqa: E402

db = SessionDB()
golden = {}
for name, replies in SCENARIOS.items():
    agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL,
                    enabled_toolsets=["terminal"], quiet_mode=True, platform="cli", session_db=db)
    agent.suppress_status_output = True
    # A front end that shows the stream (the interactive CLI, a gateway): upstream then keeps the text it had streamed
    # when a stream dies; with no stream consumer it keeps an empty part instead.
    agent.stream_delta_callback = lambda text: None
    result = agent.run_conversation(f"CUTOFF-{name}: go")
    con = sqlite3.connect(home / "state.db")
    rows = []
    for i, (role, content, finish) in enumerate(con.execute(
            "SELECT role, content, finish_reason FROM messages WHERE session_id = ? ORDER BY id", (agent.session_id,))):
        # upstream's own continuation prompts are not kept (their wording is upstream's): only that one was sent
        if role == "user" and i > 0:
            content = "[continuation request]"
        if role == "assistant":
            content = masked(content)
        if role == "tool":
            content = json.loads(content).get("output")
        rows.append([role, content, finish])
    con.close()
    golden[name] = {
        "replies": replies[: HITS.get(name, 0)] if name in ("always_drop", "length") else replies,
        "requests": HITS.get(name, 0),
        "rows": rows,
        "result": {**{k: result.get(k) for k in ("completed", "partial", "error")},
                   "final_response": masked(result.get("final_response"))},
    }
    if name == "early_always":  # upstream's waits between attempts (its backoff, plus a little of its own overhead)
        golden[name]["gaps"] = [round(b - a, 1) for a, b in zip(AT[name], AT[name][1:])]
db.close()
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps({k: [v["requests"], v["result"]] for k, v in golden.items()}, indent=1))
