"""Golden: upstream Hermes's own agent loop resuming sessions, written by upstream and by Caduceus.

The same scripted conversations are written twice: by upstream's AIAgent.run_conversation (built as
hermes_cli/oneshot.py builds it) into one home, and by Caduceus (its desk chat, `sessions.start` through the host:
scripts/golden/resume-caduceus.ts; an image through `caduceus api`) into another. Each session is then resumed
as upstream's `hermes --resume` does (hermes_cli/cli_agent_setup_mixin.py: resolve_resume_session_id,
get_messages_as_conversation without session_meta rows, then run_conversation(conversation_history=...)), and
the first request body of that resumed turn is recorded by the scripted OpenAI-compatible server.

Output (test/fixtures/upstream/resume-loop/): `requests.json` — per case, the `messages` upstream sent for
its own session and for Caduceus's (system prompts reduced to their origin, paths/ids/times normalised), and
the `tools` names; `loaded.json` — the conversation upstream loaded for its own session (what a Caduceus session
must load as); `after.json` — the rows upstream wrote back into Caduceus's sessions.

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/resume_loop.py   (after `npm run build`)
"""
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "resume-loop"
MODEL = "gpt-4o-mini"
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
RESUME = "RESUME-NEXT: what did we just do?"


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


# Each case: its first message and the replies to its successive model calls.
CASES = {
    "plain": ("RES-PLAIN: say hello", [{"content": "Hello there."}]),
    "tools": ("RES-TOOLS: run some commands", [
        {"tool_calls": [call("call_one", "terminal", {"command": "echo one"})]},
        {"content": "Two at once.", "tool_calls": [call("call_two", "terminal", {"command": "echo two"}),
                                                     call("call_three", "terminal", {"command": "echo three"})]},
        {"tool_calls": [call("call_fail", "terminal", {"command": "echo oops >&2; exit 3"})]},
        {"reasoning": "All ran; the last one failed.", "content": "Ran one, two and three; the last command failed."},
    ]),
    "reasoning": ("RES-REASON: think first", [{"reasoning": "Short thought.", "content": "Thought about it."}]),
    "image": ([{"type": "text", "text": "RES-IMAGE: what is this?"}, {"type": "image_url", "image_url": {"url": PNG}}],
              [{"content": "A single pixel."}]),
    "titled": ("RES-TITLED: the meeting is at noon", [{"content": "Noted."}]),
    "delegate": ("RES-DELEG: ask a subagent to count to three", [
        {"tool_calls": [call("call_deleg", "delegate_task", {"goal": "CHILD-COUNT: count to three"})]},
        {"content": "The subagent was dispatched."},
        {"content": "The subagent counted: one two three."},
    ]),
    "compress": ("RES-COMPRESS: run echo rounds", [
        {"tool_calls": [call(f"call_round{i}", "terminal", {"command": f"echo round-{i} " + "x" * 300})]}
        for i in range(5)
    ] + [
        {"tool_calls": [call("call_round5", "terminal", {"command": "echo round-5"})], "prompt_tokens": 60000},
        {"content": "All rounds ran."},
    ]),
}
KEYS = {c[0] if isinstance(c[0], str) else c[0][0]["text"]: k for k, c in CASES.items()}
CHILD = [{"content": "one two three"}]
SUMMARY = "RES-COMPRESS summary: echo rounds ran."

STATE = {"phase": "", "steps": {}, "recorded": {}}


def text_of(content):
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def reply_for(body):
    msgs = body.get("messages", [])
    users = [text_of(m.get("content")) for m in msgs if m.get("role") == "user"]
    first = users[0] if users else ""
    key = next((k for p, k in KEYS.items() if p.split(":")[0] in first), None)
    if "CHILD-COUNT" in first:  # the subagent's own turn
        return CHILD[0]
    if not body.get("tools"):  # auxiliary calls: the compressor's summary, a title
        return {"content": SUMMARY if "RES-COMPRESS" in json.dumps(msgs) else "Scripted title"}
    if users and RESUME in users[-1]:
        if msgs[-1].get("role") == "user":  # the resumed turn's first call: what upstream sends
            STATE["recorded"].setdefault(STATE["phase"], {})[key] = body
        return {"content": "Resumed."}
    if key is None:
        return {"content": "Scripted title"}
    step = STATE["steps"][key] = STATE["steps"].get(key, -1) + 1
    script = CASES[key][1]
    return script[min(step, len(script) - 1)]


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
        if r.get("reasoning"):
            out.append(chunk({"reasoning_content": r["reasoning"]}))
        if r.get("content"):
            out.append(chunk({"content": r["content"]}))
        for i, tc in enumerate(r.get("tool_calls", [])):
            out.append(chunk({"tool_calls": [{"index": i, **tc}]}))
        out.append(chunk({}, "tool_calls" if r.get("tool_calls") else "stop"))
        usage = {"prompt_tokens": r.get("prompt_tokens", 1200), "completion_tokens": 40, "total_tokens": 1240,
                 "prompt_tokens_details": {"cached_tokens": 200}}
        out.append(b"data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600,
                                           "model": MODEL, "choices": [], "usage": usage}).encode() + b"\n\n")
        out.append(b"data: [DONE]\n\n")
        self.wfile.write(b"".join(out))


def upstream_env(home):
    env = {**os.environ, "HERMES_HOME": str(home), "TERMINAL_CWD": str(home), "HERMES_YOLO_MODE": "1"}
    env["PYTHONPATH"] = os.pathsep.join([UPSTREAM, os.environ.get("PYTHONPATH", "")])
    return env


def child(mode, home, base_url, arg):
    """Runs upstream in its own process (its home is read from HERMES_HOME when its modules load)."""
    out = subprocess.run([sys.executable, __file__, mode, str(home), base_url, arg], env=upstream_env(home),
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def new_agent(base_url, db, session_id=None):
    from run_agent import AIAgent
    agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL,
                    enabled_toolsets=["terminal", "delegation"], quiet_mode=True, platform="cli", session_db=db,
                    session_id=session_id)
    agent.suppress_status_output = True
    return agent


def write_upstream(base_url):
    """Each case as upstream's own loop writes it (the delegation's completion delivered as its CLI does)."""
    from hermes_state import SessionDB
    from tools.async_delegation import claim_event_delivery, complete_event_delivery
    from tools.process_registry import process_registry
    db = SessionDB()
    ids = {}
    for key, (first, _) in CASES.items():
        agent = new_agent(base_url, db)
        result = agent.run_conversation(first)
        ids[key] = agent.session_id
        if key == "titled":
            db.set_session_title(agent.session_id, "Meeting at noon")
        if key == "delegate":
            for _ in range(100):
                events = process_registry.drain_notifications(session_key=agent.session_id)
                if events:
                    break
                time.sleep(0.1)
            for evt, text in events:
                claim = claim_event_delivery(evt, "cli-post-turn")
                if claim is not None:
                    agent.run_conversation(text, conversation_history=result["messages"])
                    complete_event_delivery(evt, claim)
    return ids


def resume(base_url, ids):
    """Each session resumed as `hermes --resume ID` then one message (hermes_cli/cli_agent_setup_mixin.py)."""
    from hermes_state import SessionDB
    db = SessionDB()
    out = {}
    for key, sid in ids.items():
        resolved = db.resolve_resume_session_id(sid) or sid
        history = [m for m in db.get_messages_as_conversation(resolved) if m.get("role") != "session_meta"]
        agent = new_agent(base_url, db, resolved)
        agent.run_conversation(RESUME, conversation_history=history, task_id=resolved)
        out[key] = {"resumed": resolved, "loaded": history}
    return out


def caduceus_config(home, base_url, extra=""):
    # The terminal toolset is opt-in in Caduceus (upstream's CLI has it on).
    (home / "config.yaml").write_text(f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n{extra}"
                                      f"terminal:\n  enabled: true\n  cwd: {home}\n")


def caduceus_write(home, base_url):
    caduceus_config(home, base_url)
    desk = [{"key": k, "text": c[0], **({"title": "Meeting at noon"} if k == "titled" else {}),
             **({"turns": 2} if k == "delegate" else {})}
            for k, c in CASES.items() if isinstance(c[0], str) and k != "compress"]
    writer = ROOT / "scripts" / "golden" / "resume-caduceus.ts"
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(home / "logs")}
    run = subprocess.run(["npx", "tsx", str(writer), str(home), json.dumps(desk)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise SystemExit(f"caduceus writer failed:\n{run.stderr[-4000:]}")
    ids = json.loads(run.stdout.strip().splitlines()[-1])
    ids["image"] = caduceus_image(home, env)
    return ids


def caduceus_image(home, env):
    """An image turn through `caduceus api` (the channel that takes image parts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (home / ".env").write_text("API_SERVER_KEY=hk_golden_key_0123456789abcdef\n")
    proc = subprocess.Popen(["node", "bin/caduceus.mjs", "api", "--home", str(home), "--port", str(port)], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        body = json.dumps({"model": "hermes-agent", "messages": [{"role": "user", "content": CASES["image"][0]}]})
        for _ in range(300):
            try:
                req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", body.encode(), {
                    "content-type": "application/json", "authorization": "Bearer hk_golden_key_0123456789abcdef"})
                with urllib.request.urlopen(req, timeout=60) as r:
                    return r.headers["x-hermes-session-id"]
            except (ConnectionError, urllib.error.URLError):
                time.sleep(0.1)
        raise SystemExit("caduceus api did not answer")
    finally:
        proc.terminate()
        proc.wait(10)


def caduceus_compress(home, base_url):
    """A desk turn that compresses: a small context window, so the tool rounds pass the threshold."""
    caduceus_config(home, base_url, "  context_length: 3000\ncompression:\n  enabled: true\n  threshold: 0.5\n")
    writer = ROOT / "scripts" / "golden" / "resume-caduceus.ts"
    env = {**os.environ, "HERMES_HOME": "", "CADUCEUS_LOG_DIR": str(home / "logs")}
    run = subprocess.run(["npx", "tsx", str(writer), str(home), json.dumps([{"key": "compress",
                         "text": CASES["compress"][0]}])], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise SystemExit(f"caduceus writer failed:\n{run.stderr[-4000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


if __name__ == "__main__" and len(sys.argv) > 1:
    mode, home, base_url, arg = sys.argv[1:5]
    os.chdir(home)
    # Upstream runs every home with its own config (it refuses a window under 64K, which Caduceus's compression case
    # uses to reach its threshold).
    (Path(home) / "config.yaml").write_text(
        f"model:\n  default: {MODEL}\n  provider: custom\n  base_url: {base_url}\n  context_length: 64000\n"
        "delegation:\n  max_iterations: 3\n")
    if mode == "write":
        print(json.dumps(write_upstream(base_url)))
    else:
        print(json.dumps(resume(base_url, json.loads(arg))))
    sys.stdout.flush()
    os._exit(0)  # upstream's background workers would keep the process alive


def normalise(value, homes):
    text = json.dumps(value, ensure_ascii=False)
    for h in sorted(map(str, homes), key=len, reverse=True):  # a home whose path starts another's goes first
        text = text.replace(h, "/home")
    text = re.sub(r"\d{8}_\d{6}_[0-9a-f]{6,8}", "<session>", text)
    text = re.sub(r"deleg_[0-9a-f]{8}", "deleg_<id>", text)
    text = re.sub(r"sa-\d+-[0-9a-f]{8}", "sa-<id>", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "<time>", text)  # a notice's dispatch time
    text = re.sub(r"\d+\.\d+s\b", "<n>s", text)  # and its durations
    return json.loads(text)


def sent(body, homes):
    """What upstream sent: the messages (the system prompt reduced to a marker, compared separately) and tool names."""
    msgs = normalise(body["messages"], homes)
    return {"messages": [{**m, "content": "<system prompt>"} if m["role"] == "system" else m for m in msgs],
            "tools": sorted(t["function"]["name"] for t in body.get("tools", []))}


def rows_after(db_path, ids):
    con = sqlite3.connect(db_path)
    con.row_factory = sqlite3.Row
    out = {}
    for key, sid in ids.items():
        r = con.execute("SELECT message_count, tool_call_count, input_tokens, output_tokens, cache_read_tokens, "
                        "api_call_count, title FROM sessions WHERE id = ?", (sid,)).fetchone()
        out[key] = dict(r)
    con.close()
    return out


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    scratch = Path(tempfile.mkdtemp(prefix="caduceus-golden-resume-"))
    up, cad, cadc = scratch / "upstream", scratch / "caduceus", scratch / "caduceus-compress"
    for d in (up, cad, cadc):
        d.mkdir()
    STATE["phase"] = "write-upstream"
    up_ids = child("write", up, base_url, "")
    STATE["steps"] = {}
    STATE["phase"] = "write-caduceus"
    cad_ids = caduceus_write(cad, base_url)
    STATE["steps"] = {}
    cadc_ids = caduceus_compress(cadc, base_url)
    STATE["phase"] = "upstream"
    up_res = child("resume", up, base_url, json.dumps(up_ids))
    STATE["phase"] = "caduceus"
    cad_res = child("resume", cad, base_url, json.dumps(cad_ids))
    cad_res.update(child("resume", cadc, base_url, json.dumps(cadc_ids)))
    homes = [up, cad, cadc]
    cases = {}
    for key in CASES:
        cases[key] = {who: {**sent(STATE["recorded"][who][key], homes),
                            "continuation": res[key]["resumed"] != ids[key]}
                      for who, res, ids in (("upstream", up_res, up_ids), ("caduceus", cad_res, {**cad_ids, **cadc_ids}))}
        system = [normalise(STATE["recorded"][w][key]["messages"][0]["content"], homes) for w in ("upstream", "caduceus")]
        cases[key]["same_system_prompt"] = system[0] == system[1]
    after = {"upstream": rows_after(up / "state.db", up_ids), "caduceus": {
        **rows_after(cad / "state.db", cad_ids), **rows_after(cadc / "state.db", {k: cad_res[k]["resumed"] for k in cadc_ids})}}
    if os.environ.get("RESUME_RAW"):  # the unnormalised bodies, for a closer look
        Path(os.environ["RESUME_RAW"]).write_text(json.dumps(STATE["recorded"], indent=1))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "requests.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")
    (OUT / "after.json").write_text(json.dumps(after, indent=1, ensure_ascii=False) + "\n")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
