"""Golden: what upstream does with config.yaml's `memory.nudge_interval` and `memory.flush_min_turns`.
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028 (agent/agent_init.py reads the
interval, agent/turn_context.py counts user turns, agent/turn_finalizer.py + agent/background_review.py run the review;
tools/* reset the count on a memory call). `flush_min_turns` is documented in cli-config.yaml.example but read by no
code at this commit: the golden shows it changes nothing.

Each case runs upstream's real AIAgent (built as hermes_cli/oneshot.py builds it: provider custom, toolset `memory`,
platform cli, SessionDB()) in its own home with `memory.memory_enabled: true` and the case's `memory:` settings,
against a stdlib scripted SSE server; each user turn continues the previous turn's messages, as the CLI does. After
each turn the background review thread (name "bg-review") is joined. Every model request is recorded: which turn,
main or review, its message roles, its last user message (the review's prompt is upstream prose: recorded only as
a fingerprint), its tool names. Then the home's state.db rows and MEMORY.md.
Output: test/fixtures/upstream/memory-nudge/cases.json.

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/memory_nudge.py
"""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "memory-nudge"
MODEL = "gpt-4o-mini"
# (name, memory settings as a user writes them in config.yaml, turns, turns whose reply first calls memory)
CASES = [
    ("default", "", 11, []),
    ("interval 3", "  nudge_interval: 3\n", 7, []),
    ("interval 3, memory call on turn 2", "  nudge_interval: 3\n", 7, [2]),
    ("interval '2' (a string)", "  nudge_interval: '2'\n", 4, []),
    ("interval 0", "  nudge_interval: 0\n", 11, []),
    ("interval -1", "  nudge_interval: -1\n", 4, []),
    ("interval 1", "  nudge_interval: 1\n", 2, []),
    ("interval 'abc'", "  nudge_interval: abc\n", 4, []),
    ("interval 2.7", "  nudge_interval: 2.7\n", 4, []),
    ("flush_min_turns 1, interval 0", "  nudge_interval: 0\n  flush_min_turns: 1\n", 3, []),
]

CHILD = r"""
import json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
sys.path.insert(0, os.environ["HERMES_UPSTREAM"])
turns, mem_turns = int(sys.argv[1]), json.loads(sys.argv[2])
REQS = []
STATE = {"turn": 0, "review_step": 0, "mem_done": set()}

def call(cid, args):
    return {"id": cid, "type": "function", "function": {"name": "memory", "arguments": json.dumps(args)}}

def text_of(c):
    if isinstance(c, list):
        return " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c or ""

def reply_for(body):
    msgs = body.get("messages", [])
    users = [text_of(m.get("content")) for m in msgs if m.get("role") == "user"]
    last_user = users[-1] if users else ""
    if not body.get("tools"):
        REQS.append({"turn": STATE["turn"], "kind": "auxiliary"})
        return {"content": "Scripted title"}
    review = not last_user.startswith("TURN ")
    REQS.append({"turn": STATE["turn"], "kind": "review" if review else "main",
                 "roles": [m.get("role") for m in msgs], "last_user": last_user,
                 "tools": sorted(t["function"]["name"] for t in body.get("tools", []))})
    t = STATE["turn"]
    if review:
        if msgs[-1].get("role") == "tool":
            return {"content": "Review done."}
        return {"tool_calls": [call(f"r{t}", {"action": "add", "target": "memory", "content": f"Saved by the review after turn {t}."})]}
    if t in mem_turns and t not in STATE["mem_done"]:
        STATE["mem_done"].add(t)
        return {"tool_calls": [call(f"m{t}", {"action": "add", "target": "memory", "content": f"Saved in turn {t}."})]}
    return {"content": f"Answer {t}."}

def chunk(delta, finish=None):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4o-mini",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(c).encode() + b"\n\n"

class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        r = reply_for(body)
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
        out = [chunk({"role": "assistant"})]
        if r.get("content"): out.append(chunk({"content": r["content"]}))
        for i, tc in enumerate(r.get("tool_calls", [])): out.append(chunk({"tool_calls": [{"index": i, **tc}]}))
        out.append(chunk({}, "tool_calls" if r.get("tool_calls") else "stop"))
        out.append(b"data: [DONE]\n\n")
        self.wfile.write(b"".join(out))

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{srv.server_address[1]}/v1"
home = os.environ["HERMES_HOME"]
cfg = open(os.path.join(home, "config.yaml")).read()
open(os.path.join(home, "config.yaml"), "w").write(
    f"model:\n  default: gpt-4o-mini\n  provider: custom\n  base_url: {base}\n" + cfg)
from hermes_state import SessionDB
from run_agent import AIAgent
db = SessionDB()
agent = AIAgent(api_key="sk-golden", base_url=base, provider="custom", model="gpt-4o-mini",
                enabled_toolsets=["memory"], quiet_mode=True, platform="cli", session_db=db)
agent.suppress_status_output = True
history = None
for t in range(1, turns + 1):
    STATE["turn"] = t
    res = agent.run_conversation(f"TURN {t}: hello", conversation_history=history)
    history = res["messages"]
    for th in threading.enumerate():
        if th.name == "bg-review":
            th.join(60)
print(json.dumps({"requests": REQS, "memory_store": agent._memory_store is not None,
                  "interval": agent._memory_nudge_interval, "session_id": agent.session_id}))
"""


def fingerprint(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def run_case(name, settings, turns, mem_turns):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n" + settings)
        out = subprocess.run([sys.executable, "-c", CHILD, str(turns), json.dumps(mem_turns)],
                             env={**os.environ, "HERMES_HOME": str(home), "HERMES_UPSTREAM": UPSTREAM},
                             capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise SystemExit(out.stderr[-4000:])
        res = json.loads(out.stdout.strip().splitlines()[-1])
        for r in res["requests"]:
            if r.get("kind") == "review":
                r["last_user"] = fingerprint(r["last_user"])
        con = sqlite3.connect(home / "state.db")
        rows = con.execute("SELECT s.id, s.source, m.role, m.content FROM messages m JOIN sessions s ON s.id = m.session_id"
                           " ORDER BY m.id").fetchall()
        sessions = con.execute("SELECT id, source, parent_session_id FROM sessions ORDER BY started_at").fetchall()
        con.close()
        mem = home / "memories" / "MEMORY.md"
        return {
            "name": name, "config": "memory:\n  memory_enabled: true\n" + settings, "turns": turns,
            "memory_call_turns": mem_turns, "memory_store_loaded": res["memory_store"],
            "interval_after_init": res["interval"], "requests": res["requests"],
            "review_turns": [r["turn"] for r in res["requests"] if r.get("kind") == "review" and r["roles"][-1] == "user"],
            "sessions": [{"is_main": s[0] == res["session_id"], "source": s[1], "has_parent": s[2] is not None} for s in sessions],
            "message_rows": [{"role": r[2], "content": r[3] if not r[3] or r[3].startswith(("TURN", "Answer", "{")) else fingerprint(r[3])} for r in rows],
            "memory_md": mem.read_text() if mem.exists() else None,
        }


def main():
    cases = [run_case(*c) for c in CASES]
    OUT.mkdir(parents=True, exist_ok=True)
    prompts = {r["last_user"] for c in cases for r in c["requests"] if r.get("kind") == "review"}
    out = {"upstream_commit": upstream_commit(), "review_prompt_fingerprints": sorted(prompts), "cases": cases}
    (OUT / "cases.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for c in cases:
        print(c["name"], "store:", c["memory_store_loaded"], "interval:", c["interval_after_init"],
              "reviews after turns:", c["review_turns"], "rows:", len(c["message_rows"]), "sessions:", len(c["sessions"]))


if __name__ == "__main__":
    sys.exit(main())
