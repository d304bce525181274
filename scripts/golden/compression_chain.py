#!/usr/bin/env python3
"""Golden: compression chains written by upstream's own agent loop (rotation mode), for the chain view.

Runs upstream's AIAgent (run_agent.py, as scripts/golden/agent_loop.py builds it) against a local scripted
OpenAI-compatible server, with `compression.in_place: false` so a compaction rotates to a continuation session the
way upstream v21 homes hold them (end_session(parent, "compression"), a child with parent_session_id, the compacted
list flushed into the child). Each conversation: plain question/answer turns, then a question whose tool round
reports a prompt over the threshold, so upstream compresses after that round and answers in the continuation, then
one more turn there (the standalone conversation twice over, so its chain has three parts). Three layouts of
upstream's compressor:
- standalone: protect_first_n 2, so the summary is a message of its own;
- merged:     protect_first_n 3 (head ends on a user turn) and the kept tail opens with an answer, so neither role
              fits and upstream folds the summary into that answer's row;
- question:   protect_first_n 2 (head ends on an answer) and long answers, so the kept tail opens with a question
              and upstream folds the summary into that question's row.
Either way the continuation opens with copies of the parent's first messages (its protected head), then the summary,
then copies of the kept tail.

Output (test/fixtures/upstream/compression-chain/): state.db (no WAL) and golden.json: the upstream commit, the ids,
each session's rows as upstream's SessionDB reads them (role, text head), and the session upstream resumes the
root at (its tip).

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/compression_chain.py
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

from upstream_cli import UPSTREAM, upstream_commit

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "compression-chain"
MODEL = "gpt-4o-mini"

home = Path(tempfile.mkdtemp(prefix="caduceus-golden-chain-"))
os.environ["HERMES_HOME"] = str(home)
os.environ["TERMINAL_CWD"] = str(home)
os.environ["HERMES_YOLO_MODE"] = "1"


def words(tag, n=12):
    return f"{tag} " + "lorem ipsum dolor sit amet " * n


# key -> (protect_first_n, protect_last_n)
CASES = {"standalone": (2, 3), "merged": (3, 3), "question": (2, 2)}
ROUNDS = {"standalone": 2}  # compressions per conversation (1 unless named): the standalone one's chain has 3 parts
TURNS = 4  # plain turns before the one that compresses
STEPS = {}


def text_of(content):
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def reply_for(body):
    msgs = body.get("messages", [])
    users = [text_of(m["content"]) for m in msgs if m.get("role") == "user"]
    every = " ".join(text_of(m.get("content")) for m in msgs)
    key = next((k for k in CASES if f"CHAIN-{k.upper()}" in every), None)
    if key is None:
        return {"content": "Scripted title"}
    if not body.get("tools"):  # the compressor's summary call (or a title)
        return {"content": f"CHAIN-{key.upper()} summary: the user asked {TURNS} questions and ran a command."}
    last = users[-1] if users else ""
    if "compress now" in last:
        # the question's first call: a tool round reporting a prompt over the threshold; then the answer
        step = STEPS[last] = STEPS.get(last, -1) + 1
        if step == 0:
            return {"tool_calls": [{"id": f"call_{key}", "type": "function", "function": {
                "name": "terminal", "arguments": json.dumps({"command": f"echo {key}"})}}], "prompt_tokens": 60000}
        return {"content": words(f"CHAIN-{key.upper()} answer after compression")}
    n = last.split(" question ")[1].split(" ")[0] if " question " in last else "x"
    # the question case's answers are long: the kept tail's token budget then ends at the question that compresses
    return {"content": words(f"CHAIN-{key.upper()} answer {n}", 1000 if key == "question" else 12)}


def chunk(delta, finish=None):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": MODEL,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(c).encode() + b"\n\n"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        r = reply_for(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        out = [chunk({"role": "assistant"})]
        if r.get("content"):
            out.append(chunk({"content": r["content"]}))
        for i, tc in enumerate(r.get("tool_calls", [])):
            out.append(chunk({"tool_calls": [{"index": i, **tc}]}))
        out.append(chunk({}, "tool_calls" if r.get("tool_calls") else "stop"))
        usage = {"prompt_tokens": r.get("prompt_tokens", 1200), "completion_tokens": 40, "total_tokens": 1240}
        u = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": MODEL,
             "choices": [], "usage": usage}
        out.append(b"data: " + json.dumps(u).encode() + b"\n\n")
        out.append(b"data: [DONE]\n\n")
        self.wfile.write(b"".join(out))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
sys.path.insert(0, UPSTREAM)

from hermes_state import SessionDB  # noqa: E402
from run_agent import AIAgent  # noqa: E402


def configure(protect_first_n, protect_last_n):
    (home / "config.yaml").write_text(
        f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n  context_length: 64000\n"
        f"compression:\n  in_place: false\n  protect_first_n: {protect_first_n}\n  protect_last_n: {protect_last_n}\n"
    )


db = SessionDB()
ids = {}
for key, (first_n, last_n) in CASES.items():
    configure(first_n, last_n)
    agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL,
                    enabled_toolsets=["terminal"], quiet_mode=True, platform="cli", session_db=db)
    agent.suppress_status_output = True
    history = None
    tag = f"CHAIN-{key.upper()}"
    parts = []
    for r in range(ROUNDS.get(key, 1)):
        later = f" round {r + 1}" if r else ""
        for i in range(TURNS):
            result = agent.run_conversation(words(f"{tag}{later} question {i}"), conversation_history=history)
            history = result["messages"]
            parts = parts or [agent.session_id]
        result = agent.run_conversation(f"{tag}{later} question {TURNS}: compress now", conversation_history=history)
        history = result["messages"]
        assert agent.session_id != parts[-1], f"{key}: upstream did not rotate"
        parts.append(agent.session_id)
        result = agent.run_conversation(words(f"{tag}{later} question after"), conversation_history=history)
        history = result["messages"]
    ids[key] = {"root": parts[0], "tip": parts[-1], "parts": parts}


def rows(sid):
    return [[m["role"], (text_of(m.get("content")) or "")[:80]] for m in db.get_messages_as_conversation(sid)]


golden = {"upstream_commit": upstream_commit(), "ids": ids, "cases": {}}
for key, pair in ids.items():
    golden["cases"][key] = {
        "protect_first_n": CASES[key][0],
        "protect_last_n": CASES[key][1],
        "resume_to": db.resolve_resume_session_id(pair["root"]),
        "rows": {sid: rows(sid) for sid in pair["parts"]},
    }
db.close()

con = sqlite3.connect(home / "state.db")
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
con.execute("UPDATE sessions SET system_prompt = NULL")
con.commit()
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
