"""Golden home: what upstream Hermes stores when its base URL carries a password (`http://user:pass@host/v1`).

Runs upstream's own AIAgent (provider "custom", a SessionDB, no tools) for one turn against a local
OpenAI-compatible server (stdlib http.server, SSE because upstream asks for `stream: true`) whose base URL has
userinfo. Records which Authorization scheme upstream's client sent (httpx turns the userinfo into Basic auth, in
place of the Bearer key, and the whole header value) and copies the home's state.db, whose `billing_base_url` columns hold the URL as the agent
had it, password included. The password and the server's port are fixed strings in the copy.

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/billing_url.py
(HERMES_UPSTREAM defaults to /work/upstream.) Writes test/fixtures/upstream/billing-url/{state.db,golden.json},
read by test/url-credentials.test.ts.
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "billing-url"
PASSWORD = "Pw9xQ2vLk7Zt4Rb8"
USER = "proxyuser"
RECORDED_PORT = "43210"

home = Path(tempfile.mkdtemp(prefix="billing-url-"))
os.environ["HERMES_HOME"] = str(home)
sys.path.insert(0, UPSTREAM)
seen = []


def sse(delta, finish=None, usage=None):
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        chunk["usage"] = usage
    return "data: " + json.dumps(chunk) + "\n\n"


class Provider(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        size = int(self.headers.get("content-length", 0))
        self.rfile.read(size)
        auth = self.headers.get("authorization") or ""
        seen.append({"path": self.path, "scheme": auth.split(" ")[0], "authorization": auth})
        if not self.path.endswith("/chat/completions"):
            self.send_response(404)
            self.end_headers()
            return
        body = (sse({"role": "assistant", "content": "ok"})
                + sse({}, "stop", {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6})
                + "data: [DONE]\n\n").encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = HTTPServer(("127.0.0.1", 0), Provider)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = str(server.server_address[1])
base_url = f"http://{USER}:{PASSWORD}@127.0.0.1:{port}/v1"

from hermes_state import SessionDB  # noqa: E402
from run_agent import AIAgent  # noqa: E402

db = SessionDB(home / "state.db")
agent = AIAgent(base_url=base_url, api_key="sk-billing-url-000000", model="m", provider="custom", quiet_mode=True,
                skip_context_files=True, skip_memory=True, session_db=db, session_id="S1", enabled_toolsets=[],
                platform="cli")
agent.run_conversation("hello")
db.close()
server.shutdown()

con = sqlite3.connect(home / "state.db")
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
for table in ("sessions", "session_model_usage"):
    con.execute(f"UPDATE {table} SET billing_base_url = replace(billing_base_url, ?, ?)", (f":{port}/", f":{RECORDED_PORT}/"))
con.execute("UPDATE sessions SET system_prompt = NULL")
con.commit()
golden = {
    "agent_base_url": agent.base_url.replace(f":{port}/", f":{RECORDED_PORT}/"),
    "authorization_schemes": sorted({r["scheme"] for r in seen if r["path"].endswith("/chat/completions")}),
    # The whole header: user and password are fixed strings, so the value is too.
    "authorizations": sorted({r["authorization"] for r in seen if r["path"].endswith("/chat/completions")}),
    "request_paths": sorted({r["path"] for r in seen}),
    "sessions": [list(r) for r in con.execute("SELECT id, billing_base_url FROM sessions")],
    "session_model_usage": [list(r) for r in con.execute("SELECT session_id, billing_base_url FROM session_model_usage")],
}
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "state.db").unlink(missing_ok=True)
out = sqlite3.connect(OUT / "state.db")
con.backup(out)
con.close()
out.execute("PRAGMA journal_mode=DELETE")
out.execute("VACUUM")
out.close()
(OUT / "golden.json").write_text(json.dumps(golden, indent=1) + "\n")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps(golden))
