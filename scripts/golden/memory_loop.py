"""Golden: memory through both programs' real agent loops, on one kind of home.

Upstream's AIAgent.run_conversation (built as hermes_cli/oneshot.py builds it, toolset `memory`) and Caduceus's desk
chat (`sessions.start` through the host: scripts/golden/memory-caduceus.ts) run the same scripted memory tool calls
against a stdlib scripted SSE server, each into its own home: the built-in store in profile `default`, and
`memory.provider: holographic` in profile `holo` (its fact_store / fact_feedback tools). Then each program starts a
NEW session on the home the OTHER wrote (and on its own), and the first request of that session is recorded: its
system prompt carries the frozen memory snapshot (and, for holographic, the provider's block; the user message its
prefetch). Caduceus's host reads (memory.entries / health / providers / events) of upstream's home are recorded too.

A third Caduceus profile, `page`, is written only through the Memory page's request (`memory.edit`); and `live`
records a running Caduceus host's next session after upstream wrote to the home between its two sessions.
Output: test/fixtures/upstream/memory-loop/golden.json (its README says what each key holds and what it shows).

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/memory_loop.py
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "memory-loop"
MODEL = "gpt-4o-mini"
NEXT = "MEM-NEXT: what do you remember about Atlas and tea?"


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def mem(cid, **args):
    return call(cid, "memory", args)


BIG = "Oversized note: " + "x" * 2300
# One tool call per model call, so the answers come back in a fixed order.
SCRIPTS = {
    "MEM-BUILTIN": [
        mem("c1", action="add", target="memory", content="Project Atlas uses PostgreSQL 16."),
        mem("c2", action="add", target="user", content="User prefers concise answers."),
        mem("c3", action="add", target="memory", content="Deploys happen on Fridays."),
        mem("c4", action="replace", target="memory", old_text="on Fridays", content="Deploys happen on Thursdays."),
        mem("c5", action="add", target="memory", content="Temporary note to remove."),
        mem("c6", action="remove", target="memory", old_text="Temporary note"),
        mem("c7", action="add", target="memory", content=BIG),
        mem("c8", action="add", target="memory", content="Project Atlas uses PostgreSQL 16."),
        mem("c9", action="add", target="user", content="Multi-line entry:\n- first\n- second"),
        # Refusals: an ambiguous old_text and a missing one, then four consolidation failures in a row (the
        # fourth past upstream's per-turn cap), then a successful add.
        mem("c10", action="remove", target="memory", old_text="e"),
        mem("c11", action="replace", target="memory", content="No old text given."),
        mem("c12", action="remove", target="memory", old_text="not in any entry"),
        mem("c13", action="replace", target="memory", old_text="Thursdays", content=BIG),
        mem("c14", action="add", target="memory", content=BIG),
        mem("c15", action="remove", target="user", old_text="nowhere"),
        mem("c16", action="add", target="memory", content="Final note after the refusals."),
    ],
    "MEM-HOLO": [
        call("h1", "fact_store", {"action": "add", "content": "Ada Lovelace prefers green tea.", "category": "user_pref",
                                  "tags": "tea,ada"}),
        call("h2", "fact_store", {"action": "add", "content": "Project Atlas deploys with Kubernetes.",
                                  "category": "project"}),
        call("h3", "fact_store", {"action": "add", "content": "Scratch fact to drop."}),
        call("h4", "fact_store", {"action": "search", "query": "tea"}),
        call("h5", "fact_feedback", {"action": "helpful", "fact_id": 1}),
        call("h6", "fact_store", {"action": "update", "fact_id": 2, "trust_delta": 0.2}),
        call("h7", "fact_store", {"action": "remove", "fact_id": 3}),
        mem("h8", action="add", target="user", content="User drinks green tea."),
        call("h9", "fact_store", {"action": "list"}),
        call("h10", "fact_store", {"action": "add", "content": "Ada Lovelace prefers green tea."}),
    ],
}
PAGE_EDITS = [
    {"op": "add", "profile": "page", "target": "memory", "content": "Edited on the Memory page."},
    {"op": "add", "profile": "page", "target": "memory", "content": "Second page entry\nwith two lines."},
    {"op": "add", "profile": "page", "target": "user", "content": "User likes the Memory page."},
    {"op": "replace", "profile": "page", "target": "memory", "index": 0, "content": "Edited twice on the page."},
    {"op": "add", "profile": "page", "target": "memory", "content": "Page entry to remove."},
    {"op": "remove", "profile": "page", "target": "memory", "index": 2},
    {"op": "add", "profile": "page", "target": "memory", "content": "Edited twice on the page."},
    {"op": "add", "profile": "page", "target": "user", "content": "y" * 1400},
]
STATE = {"steps": {}, "answers": {}, "next": {}, "phase": ""}


def text_of(content):
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def reply_for(body):
    msgs = body.get("messages", [])
    users = [text_of(m.get("content")) for m in msgs if m.get("role") == "user"]
    first = users[0] if users else ""
    if not body.get("tools"):
        return {"content": "Scripted title"}
    if NEXT in first:
        if msgs[-1].get("role") == "user":
            STATE["next"][STATE["phase"]] = body
        return {"content": "Remembered."}
    key = next((k for k in SCRIPTS if k in first), None)
    if key is None:
        return {"content": "Scripted title"}
    if msgs[-1].get("role") == "tool":
        # Upstream's generic tool-loop guard appends a warning to repeated failures; the memory answer is before it.
        answer, warned, _ = (msgs[-1].get("content") or "").partition("\n\n[Tool loop warning")
        STATE["answers"].setdefault(STATE["phase"], []).append(
            {"id": msgs[-1].get("tool_call_id"), "content": answer, "loop_warning": bool(warned)})
    step = STATE["steps"][key] = STATE["steps"].get(key, -1) + 1
    script = SCRIPTS[key]
    return {"tool_calls": [script[step]]} if step < len(script) else {"content": "Saved."}


def chunk(delta, finish=None):
    return b"data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600,
                                   "model": MODEL, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                                  ).encode() + b"\n\n"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

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
        usage = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240}
        out.append(b"data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600,
                                           "model": MODEL, "choices": [], "usage": usage}).encode() + b"\n\n")
        out.append(b"data: [DONE]\n\n")
        self.wfile.write(b"".join(out))


def profile_home(root, profile):
    return root if profile == "default" else root / "profiles" / profile


def write_config(home, base_url, provider):
    home.mkdir(parents=True, exist_ok=True)
    extra = "memory:\n  memory_enabled: true\n  user_profile_enabled: true\n"
    if provider:
        extra += f"  provider: {provider}\n"
    (home / "config.yaml").write_text(
        f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n  context_length: 64000\n{extra}")


def upstream_env(home):
    env = {**os.environ, "HERMES_HOME": str(home), "TERMINAL_CWD": str(home), "HERMES_YOLO_MODE": "1", "HOME": str(home)}
    env["PYTHONPATH"] = os.pathsep.join([UPSTREAM, os.environ.get("PYTHONPATH", "")])
    return env


def child(home, base_url, text):
    """One upstream session in its own process (its home is read from HERMES_HOME when its modules load)."""
    out = subprocess.run([sys.executable, __file__, "run", str(home), base_url, text], env=upstream_env(home),
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"upstream run failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_upstream(base_url, text):
    from hermes_state import SessionDB
    from run_agent import AIAgent
    agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL, enabled_toolsets=["memory"],
                    quiet_mode=True, platform="cli", session_db=SessionDB())
    agent.suppress_status_output = True
    agent.run_conversation(text)
    agent.shutdown_memory_provider()
    return {"session": agent.session_id}


if __name__ == "__main__" and len(sys.argv) > 1:
    _, home, base_url, text = sys.argv[1:5]
    os.chdir(home)
    print(json.dumps(run_upstream(base_url, text)))
    sys.stdout.flush()
    os._exit(0)  # upstream's background workers would keep the process alive


def caduceus(root, jobs):
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(root / "logs")}
    run = subprocess.run(["npx", "tsx", str(ROOT / "scripts" / "golden" / "memory-caduceus.ts"), str(root),
                          json.dumps(jobs)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise SystemExit(f"caduceus failed:\n{run.stderr[-4000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def files_of(home):
    out = {}
    for name in ("MEMORY.md", "USER.md"):
        p = home / "memories" / name
        out[name] = p.read_text(encoding="utf-8") if p.exists() else None
    return out


def facts_of(home):
    p = home / "memory_store.db"
    if not p.exists():
        return None
    con = sqlite3.connect(p)
    rows = con.execute("SELECT fact_id, content, category, tags, trust_score, retrieval_count, helpful_count "
                       "FROM facts ORDER BY fact_id").fetchall()
    ents = con.execute("SELECT name FROM entities ORDER BY entity_id").fetchall()
    fts = con.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'tea' ORDER BY rowid").fetchall()
    con.close()
    return {"facts": [dict(zip(["fact_id", "content", "category", "tags", "trust_score", "retrieval_count",
                                "helpful_count"], r)) for r in rows],
            "entities": [e[0] for e in ents], "fts_tea": [r[0] for r in fts]}


def memory_parts(body):
    """The next session's first request, reduced to its memory: the snapshot blocks of the system prompt (from the
    first ═ rule on, up to the next blank-line section that is not memory), the user message, the tool names."""
    system = body["messages"][0]["content"]
    blocks = re.findall(r"(═{46}\n(?:MEMORY|USER PROFILE)[^\n]*\n═{46}\n.*?)(?=\n\n(?!§)|\Z)", system, re.S)
    holo = re.findall(r"(# Holographic Memory.*?)(?=\n\n|\Z)", system, re.S)
    return {"blocks": blocks, "holographic": holo,
            "user": text_of(body["messages"][-1]["content"]),
            "tools": sorted(t["function"]["name"] for t in body.get("tools", []))}


def normalise(value, homes):
    text = json.dumps(value, ensure_ascii=False)
    for h in sorted(map(str, homes), key=len, reverse=True):
        text = text.replace(h, "/home")
    text = re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?", "<time>", text)
    return json.loads(text)


def live_switch(root, base_url):
    """One Caduceus host runs a session, upstream's loop adds an entry meanwhile, then the same host starts a new
    session: the snapshot of each first request (the second must carry upstream's entry)."""
    write_config(root, base_url, "")
    (root / "memories").mkdir()
    (root / "memories" / "MEMORY.md").write_text("Existing entry.")
    flag = root / "go"
    jobs = {"turns": [{"key": "a", "profile": "default", "text": NEXT},
                      {"key": "b", "profile": "default", "text": NEXT, "after": str(flag)}]}
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(root / "logs")}
    STATE["phase"] = "live-first"
    proc = subprocess.Popen(["npx", "tsx", str(ROOT / "scripts" / "golden" / "memory-caduceus.ts"), str(root),
                             json.dumps(jobs)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    ready = Path(f"{flag}.ready")
    for _ in range(6000):
        if ready.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    if not ready.exists():
        raise SystemExit(f"caduceus live run failed:\n{proc.stderr.read()[-4000:]}")
    STATE["steps"] = {}
    STATE["phase"] = "live-upstream-write"
    SCRIPTS["MEM-LIVE"] = [mem("l1", action="add", target="memory", content="Upstream wrote this meanwhile.")]
    child(root, base_url, "MEM-LIVE: remember")
    STATE["phase"] = "live-second"
    flag.write_text("")
    _, err = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"caduceus live run failed:\n{err[-4000:]}")
    return {k: memory_parts(STATE["next"].pop(f"live-{k}"))["blocks"] for k in ("first", "second")}


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    scratch = Path(tempfile.mkdtemp(prefix="caduceus-golden-memloop-"))
    up, cad = scratch / "upstream", scratch / "caduceus"
    for root in (up, cad):
        write_config(profile_home(root, "default"), base_url, "")
        write_config(profile_home(root, "holo"), base_url, "holographic")
    result = {"upstream": {}, "caduceus": {}}
    # 1. Each program writes its own home.
    for prof, key in (("default", "MEM-BUILTIN"), ("holo", "MEM-HOLO")):
        STATE["steps"] = {}
        STATE["phase"] = f"upstream-write-{prof}"
        child(profile_home(up, prof), base_url, f"{key}: remember these things")
    STATE["steps"] = {}
    STATE["phase"] = "caduceus-write"
    caduceus(cad, {"turns": [{"key": "b", "profile": "default", "text": "MEM-BUILTIN: remember these things"}]})
    STATE["steps"] = {}
    STATE["phase"] = "caduceus-write-holo"
    caduceus(cad, {"turns": [{"key": "h", "profile": "holo", "text": "MEM-HOLO: remember these things"}]})
    STATE["answers"]["caduceus-write-default"] = STATE["answers"].pop("caduceus-write", [])
    # The Memory page's edits (memory.edit, by index) in a third profile, for upstream's next session to read.
    write_config(profile_home(cad, "page"), base_url, "")
    edits = caduceus(cad, {"edits": PAGE_EDITS})["edits"]
    snapshot = {r: {p: {"files": files_of(profile_home(root, p)), "facts": facts_of(profile_home(root, p))}
                    for p in ("default", "holo")} for r, root in (("upstream", up), ("caduceus", cad))}
    snapshot["caduceus"]["page"] = {"files": files_of(profile_home(cad, "page")), "edits": edits}
    # 2. Caduceus's host reads upstream's home; each program starts a new session on each home.
    reads = caduceus(up, {"reads": ["default", "holo"]})["reads"]
    for who, root, profs in (("upstream", up, ("default", "holo")), ("caduceus", cad, ("default", "holo", "page"))):
        for prof in profs:
            STATE["phase"] = f"upstream-next-on-{who}-{prof}"
            child(profile_home(root, prof), base_url, NEXT)
            STATE["phase"] = f"caduceus-next-on-{who}-{prof}"
            caduceus(root, {"turns": [{"key": "n", "profile": prof, "text": NEXT}]})
    live = live_switch(scratch / "live", base_url)
    homes = [up, cad, scratch / "live"]
    calls = {k: [{"id": c["id"], "name": c["function"]["name"], "args": json.loads(c["function"]["arguments"])}
                 for c in v] for k, v in SCRIPTS.items()}
    out = {"calls": calls, "answers": normalise(STATE["answers"], homes), "homes": normalise(snapshot, homes),
           "next": normalise({k: memory_parts(v) for k, v in STATE["next"].items()}, homes),
           "reads": normalise(reads, homes), "live": normalise(live, homes)}
    if os.environ.get("MEMLOOP_RAW"):
        Path(os.environ["MEMLOOP_RAW"]).write_text(json.dumps(STATE["next"], indent=1, ensure_ascii=False))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "golden.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    if os.environ.get("MEMLOOP_KEEP"):  # keep both homes, e.g. to open them in the app
        print(scratch)
    else:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
