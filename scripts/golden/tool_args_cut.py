"""Golden: upstream Hermes's agent loop on a reply whose finish_reason says "tool_calls" while a tool call's
arguments are not whole JSON — a router that hides an output-cap cut behind the tool-call finish reason.

Runs upstream's own AIAgent (built as scripts/golden/stream_cutoff.py builds it: provider "custom", base_url, model,
the terminal toolset, platform "cli", SessionDB(), a stream consumer) against a local scripted OpenAI-compatible
server. Every reply is a whole SSE body ending in finish_reason "tool_calls" and `[DONE]`; what varies is the tool
call's arguments. One session per scenario:
- cut_always: text, then a call whose arguments stop inside a string value, every time.
- cut_notext_always: the same with no text before the call.
- cut_then_whole: one cut reply, then the same call whole, then a final reply.
- second_cut_then_whole: two calls, the first whole and the second cut; then both whole; then a final reply.
- cut_closable: a call whose arguments lack only the closing brace (`{"command":"echo hi"`), then a final reply.
- cut_after_comma: a call whose arguments stop after a comma between fields, then a final reply.
- malformed_closed: a call whose arguments are complete but not JSON (single quotes), then a final reply.
Output: test/fixtures/upstream/tool-args-cut/golden.json, per scenario in stream-cutoff's format (replies, requests,
rows as [role, content, finish_reason], tool_calls stored, result), plus `max_tokens`: the output cap each request
asked for (null: none sent).

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/tool_args_cut.py
(HERMES_UPSTREAM defaults to /work/upstream.)
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
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "tool-args-cut"
MODEL = "gpt-4o-mini"
home = Path(tempfile.mkdtemp(prefix="caduceus-golden-argscut-"))
os.environ["HERMES_HOME"] = str(home)
os.environ["HERMES_YOLO_MODE"] = "1"


def chunk(delta, finish=None):
    c = {"id": "c1", "object": "chat.completion.chunk", "created": 1767225600, "model": MODEL,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(c) + "\n\n"


def call(index, call_id, args):
    return (chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                   "function": {"name": "terminal", "arguments": ""}}]})
            + chunk({"tool_calls": [{"index": index, "function": {"arguments": args}}]}))


def reply(text, *calls):
    body = chunk({"content": text}) if text else chunk({"role": "assistant"})
    for i, args in enumerate(calls):
        body += call(i, f"call_{i + 1}", args)
    return {"body": body + chunk({}, "tool_calls" if calls else "stop") + "data: [DONE]\n\n", "drop": False}


CUT = '{"command":"echo hel'
WHOLE = '{"command":"echo hello"}'
SCENARIOS = {
    "cut_always": [reply("Writing. ", CUT)],
    "cut_notext_always": [reply("", CUT)],
    "cut_then_whole": [reply("Writing. ", CUT), reply("Writing. ", WHOLE), reply("Done.")],
    "second_cut_then_whole": [reply("Two. ", '{"command":"echo one"}', CUT),
                              reply("Two. ", '{"command":"echo one"}', WHOLE), reply("Done.")],
    "cut_closable": [reply("Writing. ", '{"command":"echo hi"'), reply("Done.")],
    "cut_after_comma": [reply("Writing. ", '{"command":"echo hi",'), reply("Done.")],
    "malformed_closed": [reply("Writing. ", "{'command': 'echo hi'}"), reply("Done.")],
}
HITS = {}
CAPS = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        first = next((m for m in body.get("messages", []) if m.get("role") == "user"), {})
        name = next((k for k in SCENARIOS if f"ARGSCUT-{k}:" in json.dumps(first.get("content"))), None)
        if name is None:  # an auxiliary call (title generation and the like)
            r = reply("Scripted title")
        else:
            HITS[name] = HITS.get(name, 0) + 1
            CAPS.setdefault(name, []).append(body.get("max_tokens", body.get("max_completion_tokens")))
            replies = SCENARIOS[name]
            r = replies[min(HITS[name], len(replies)) - 1]
        data = r["body"].encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


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
    agent.stream_delta_callback = lambda text: None
    result = agent.run_conversation(f"ARGSCUT-{name}: go")
    con = sqlite3.connect(home / "state.db")
    rows = []
    calls = []
    for i, (role, content, finish, tool_calls) in enumerate(con.execute(
            "SELECT role, content, finish_reason, tool_calls FROM messages WHERE session_id = ? ORDER BY id",
            (agent.session_id,))):
        calls += [c["function"]["arguments"] for c in json.loads(tool_calls or "[]")]
        if role == "user" and i > 0:
            content = "[continuation request]"
        if role == "tool":  # its output, or `[error]` for a tool that failed with none
            out = json.loads(content)
            content = out.get("output") or ("[error]" if out.get("error") else out.get("output"))
        rows.append([role, content, finish])
    con.close()
    golden[name] = {
        "replies": replies,
        "requests": HITS.get(name, 0),
        "max_tokens": CAPS.get(name, []),
        "rows": rows,
        **({"tool_calls": calls} if calls else {}),
        "result": {**{k: result.get(k) for k in ("completed", "partial", "interrupted", "error")},
                   "final_response": result.get("final_response")},
    }
db.close()
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps({k: [v["requests"], v["max_tokens"], v["rows"], v["result"]] for k, v in golden.items()}, indent=1))
