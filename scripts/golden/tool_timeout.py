#!/usr/bin/env python3
"""Golden: the row upstream's parallel tool executor stores for a call that outlived its timeout.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Upstream's own AIAgent (as agent_loop.py builds it: provider "custom" on a local scripted OpenAI-compatible server,
platform "cli", SessionDB) is asked one turn whose model reply calls two parallel-safe tools at once (read_file and
search_files: agent/tool_executor.py runs them concurrently); search_files' handler is made to block past the
executor's deadline (HERMES_CONCURRENT_TOOL_TIMEOUT_S=5), so upstream stores its own text in the timed-out call's
tool row. Recorded: the session's rows (state.db, as message_rows reads them), and what upstream's CLI display makes
of each tool result (agent/display.py _detect_tool_failure: failed or not, its suffix).
Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/tool_timeout.py
Writes test/fixtures/upstream/tool-timeout/cases.json; read by test/tool-result-more-golden.test.ts.
"""
import json
import os
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from golden_setup import message_rows, serve_provider, sse_chunk, temp_dir, upstream_home, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "tool-timeout" / "cases.json"
MODEL = "m"
home = upstream_home()
work = temp_dir("golden-timeout-ws-")
(work / "notes.txt").write_text("alpha\n")
os.environ["TERMINAL_CWD"] = str(work)
os.environ["HERMES_CONCURRENT_TOOL_TIMEOUT_S"] = "5"
CALLS = [
    {"id": "call_read", "type": "function",
     "function": {"name": "read_file", "arguments": json.dumps({"path": "notes.txt"})}},
    {"id": "call_slow", "type": "function",
     "function": {"name": "search_files", "arguments": json.dumps({"pattern": "alpha"})}},
]
RELEASE = threading.Event()


class Provider(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        answered = any(m.get("role") == "tool" for m in body.get("messages", []))
        out = [sse_chunk(MODEL, {"role": "assistant"})]
        if not body.get("tools"):
            out.append(sse_chunk(MODEL, {"content": "a title"}))
            out.append(sse_chunk(MODEL, {}, "stop"))
        elif answered:
            out.append(sse_chunk(MODEL, {"content": "The search did not finish in time."}))
            out.append(sse_chunk(MODEL, {}, "stop"))
        else:
            out += [sse_chunk(MODEL, {"tool_calls": [{"index": i, **c}]}) for i, c in enumerate(CALLS)]
            out.append(sse_chunk(MODEL, {}, "tool_calls"))
        out.append(b"data: [DONE]\n\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"".join(out))


server, base_url = serve_provider(Provider)
(home / "config.yaml").write_text(f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n")

from agent.display import _detect_tool_failure  # noqa: E402
from hermes_state import SessionDB  # noqa: E402
from run_agent import AIAgent  # noqa: E402
from tools.registry import registry  # noqa: E402

entry = registry.get_entry("search_files")
entry.handler = lambda args, **kw: (RELEASE.wait(30), json.dumps({"total_count": 0}))[1]

db = SessionDB()
agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL, enabled_toolsets=["file"],
                quiet_mode=True, platform="cli", session_db=db)
agent.suppress_status_output = True
agent.run_conversation("read notes.txt and search for alpha")
RELEASE.set()
rows = message_rows(home / "state.db", agent.session_id)
for r in rows:
    r.pop("timestamp")
display = {r["tool_call_id"]: list(_detect_tool_failure(r["tool_name"], r["content"])) for r in rows if r["role"] == "tool"}
write_golden(OUT, "scripts/golden/tool_timeout.py", {"rows": rows, "cliDisplay": display})
print(json.dumps(display))
