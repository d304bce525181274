"""Golden: upstream Hermes's agent loop on replies cut short — a stream dropped mid-reply, or cut by the output cap.

Runs upstream's own AIAgent (run_agent.py, built as hermes_cli/oneshot.py builds it: provider "custom", base_url,
model, the terminal toolset, platform "cli", SessionDB()) against a local scripted OpenAI-compatible server (the
`ant_*` scenarios: provider "anthropic", the same server speaking Anthropic's Messages protocol). Each
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
- clean_tool_cut_notext: no text, only a tool call whose arguments stop mid-value, the body ending normally with no
  finish_reason and no [DONE]; then a final reply.
- length_tool_stop_tool / length_tool_stop_stream: a length-cut reply, a continuation that calls a tool, and the
  user's stop (agent.interrupt()) while that tool runs / while the next reply is streaming.
- ant_*: the same on the Anthropic Messages protocol (upstream's provider "anthropic", its `anthropic` SDK):
  ant_tool_cut (a tool_use whose input JSON stops mid-value, then content_block_stop, message_delta and
  message_stop), ant_tool_partial (the input stops after a whole first field), ant_tool_cut_no_stop (the body ends
  normally right after the cut input: no message_delta, no message_stop), ant_start_only (every body holds only
  message_start; its `gaps` are kept).
Output: test/fixtures/upstream/stream-cutoff/golden.json — per scenario the replies (so a test can replay the same
bytes), how many requests upstream made, the rows it stored (role, content, finish_reason; user rows upstream
wrote itself become `[continuation request]`, its note on a cut tool call `[note]`, the row it closes a stopped tool
round with `[stopped]`; a tool row is its output, or `[error]`), the arguments of every tool call it stored
(`tool_calls`), its result (final_response, completed, partial, interrupted, error) and, where its waits are the
subject, the seconds between its requests (`gaps`).

A reply marked `interrupt` has the user's stop sent once it is served: "stream" keeps the connection open after the
body (the model still writing), "tool" lets the body end and stops while the tool it calls runs (`sleep 3` here).

Run: PYTHONPATH=<dirs with openai and anthropic> /usr/bin/python3 scripts/golden/stream_cutoff.py
(HERMES_UPSTREAM defaults to /work/upstream; upstream needs the `openai` and `anthropic` packages (its pins: openai
2.x, anthropic 0.87.0), which system Python lacks.)
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


TOOL = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": ""}}


def cut(body):
    return {"body": body, "drop": True}


def ev(kind, **data):
    """One Anthropic stream event."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


ANT_MODEL = "claude-sonnet-4-5"
ANT_START = ev("message_start", message={"id": "msg_1", "type": "message", "role": "assistant", "model": ANT_MODEL,
                                        "content": [], "stop_reason": None, "stop_sequence": None,
                                        "usage": {"input_tokens": 10, "output_tokens": 1}})


def ant_tool(partial_json):
    return (ev("content_block_start", index=0,
               content_block={"type": "tool_use", "id": "toolu_1", "name": "terminal", "input": {}})
            + ev("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": partial_json}))


def ant_end(reason):
    return (ev("content_block_stop", index=0)
            + ev("message_delta", delta={"stop_reason": reason, "stop_sequence": None}, usage={"output_tokens": 3})
            + ev("message_stop"))


def ant_whole(text):
    return {"body": ANT_START + ev("content_block_start", index=0, content_block={"type": "text", "text": ""})
            + ev("content_block_delta", index=0, delta={"type": "text_delta", "text": text}) + ant_end("end_turn"),
            "drop": False}


def tool_reply(text, command, **extra):
    call = {**TOOL, "function": {"name": "terminal", "arguments": json.dumps({"command": command})}}
    return {"body": chunk({"content": text}) + chunk({"tool_calls": [call]}) + chunk({}, "tool_calls")
            + "data: [DONE]\n\n", "drop": False, **extra}


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
    "clean_tool_cut_notext": [
        {"body": chunk({"role": "assistant"}) + chunk({"tool_calls": [TOOL]})
         + chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"command\":"}}]}), "drop": False},
        whole("Done."),
    ],
    "length_tool_stop_tool": [
        whole("Cap part 1. ", "length"),
        tool_reply("Cap part 2. ", "sleep 3", interrupt="tool"),
        whole("never sent"),
    ],
    "length_tool_stop_stream": [
        whole("Cap part 1. ", "length"),
        tool_reply("Cap part 2. ", "echo hi"),
        {"body": chunk({"content": "Final wo"}), "drop": False, "interrupt": "stream"},
        whole("never sent"),
    ],
    "ant_tool_cut": [{"body": ANT_START + ant_tool("{\"command\":") + ant_end("tool_use"), "drop": False},
                     ant_whole("Done.")],
    "ant_tool_partial": [{"body": ANT_START + ant_tool("{\"command\":\"echo hi\",\"timeout\":") + ant_end("tool_use"),
                          "drop": False}, ant_whole("Done.")],
    "ant_tool_cut_no_stop": [{"body": ANT_START + ant_tool("{\"command\":"), "drop": False}, ant_whole("Done.")],
    "ant_start_only": [{"body": ANT_START, "drop": False}],
}
HITS = {}
AT = {}
CURRENT = [None]


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
            reply = ant_whole("Scripted title") if self.path.endswith("/messages") else whole("Scripted title")
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
        if reply.get("interrupt"):
            # the user's stop: while the tool this reply calls runs, or while this reply is still streaming
            agent = CURRENT[0]
            threading.Timer(1.0 if reply["interrupt"] == "tool" else 0.3, agent.interrupt).start()
            if reply["interrupt"] == "stream":
                time.sleep(3)  # the connection stays open, no more bytes: the model is still writing
                self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
ant_url = f"http://127.0.0.1:{server.server_address[1]}"
base_url = f"{ant_url}/v1"
(home / "config.yaml").write_text(f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n")
sys.path.insert(0, UPSTREAM)

from hermes_state import SessionDB  # noqa: E402
from run_agent import AIAgent  # noqa: E402

db = SessionDB()
golden = {}
for name, replies in SCENARIOS.items():
    api = "anthropic" if name.startswith("ant_") else "openai"
    if api == "anthropic":
        agent = AIAgent(api_key="sk-ant-golden", base_url=ant_url, provider="anthropic", model=ANT_MODEL,
                        enabled_toolsets=["terminal"], quiet_mode=True, platform="cli", session_db=db)
    else:
        agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL,
                        enabled_toolsets=["terminal"], quiet_mode=True, platform="cli", session_db=db)
    CURRENT[0] = agent
    agent.suppress_status_output = True
    # A front end that shows the stream (the interactive CLI, a gateway): upstream then keeps the text it had streamed
    # when a stream dies; with no stream consumer it keeps an empty part instead.
    agent.stream_delta_callback = lambda text: None
    result = agent.run_conversation(f"CUTOFF-{name}: go")
    con = sqlite3.connect(home / "state.db")
    rows = []
    calls = []
    for i, (role, content, finish, tool_calls) in enumerate(con.execute(
            "SELECT role, content, finish_reason, tool_calls FROM messages WHERE session_id = ? ORDER BY id",
            (agent.session_id,))):
        calls += [c["function"]["arguments"] for c in json.loads(tool_calls or "[]")]
        # upstream's own continuation prompts are not kept (their wording is upstream's): only that one was sent
        if role == "user" and i > 0:
            content = "[continuation request]"
        if role == "assistant":
            content = masked(content)
        if role == "assistant" and content == "Operation interrupted.":
            content = "[stopped]"  # the row upstream closes a tool round cut off by a stop with (its own wording)
        if role == "tool":  # its output, or `[error]` for a tool that failed with none
            out = json.loads(content)
            content = out.get("output") or ("[error]" if out.get("error") else out.get("output"))
        rows.append([role, content, finish])
    con.close()
    golden[name] = {
        **({"api": api} if api != "openai" else {}),
        "replies": replies[: HITS.get(name, 0)] if name in ("always_drop", "length") else replies,
        "requests": HITS.get(name, 0),
        "rows": rows,
        **({"tool_calls": calls} if calls else {}),  # the arguments of every tool call upstream stored (and ran)
        "result": {**{k: result.get(k) for k in ("completed", "partial", "interrupted", "error")},
                   "final_response": masked(result.get("final_response"))},
    }
    if name in ("early_always", "ant_start_only"):  # upstream's waits between attempts (its backoff, plus a little of its own overhead)
        golden[name]["gaps"] = [round(b - a, 1) for a, b in zip(AT[name], AT[name][1:])]
db.close()
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps({k: [v["requests"], v["result"]] for k, v in golden.items()}, indent=1))
