#!/usr/bin/env python3
"""Golden session rows upstream writes for a conversation started from each of its entry points.

Each entry point runs its real code against a local scripted OpenAI-compatible provider (stdlib http.server: a
terminal call `echo hi` first, then a reply with reasoning; usage 1200 prompt tokens of which 200 cached, 40 completion;
an unknown model, so unpriced):
- one-shot: upstream's `hermes -z` (hermes_cli/main.py, its own process);
- api_server: upstream's APIServerAdapter (its own connect(), real sockets): /v1/chat/completions without a session
  header, with X-Hermes-Session-Id, streamed, and /v1/responses then a request chained by previous_response_id;
- cron: cron.jobs.create_job then cron.scheduler.run_job for a job named "Nightly check".
A delegated child's row is in test/fixtures/upstream/agent-loop/state.db (agent_loop.py).
Recorded per entry: the session row's columns (times as "set"/null, the endpoint's port as <provider>, a cron title's
clock as <Mon DD HH:MM>, the prompt as its presence) and its messages' columns (ids, times and tool output left out);
`usage`: the usage the chat completion and the first response answered with (one turn, two provider calls);
`gatewayActive`: how many rows upstream's `hermes status` counts as live gateway sessions
(SessionDB.list_gateway_sessions(active_only=True)) once all have run.

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/entry_rows.py   (HERMES_UPSTREAM: the checkout)
Writes test/fixtures/upstream/entry-rows/golden.json; read by test/turn-rows-golden.test.ts and test/cli-run.test.ts.
"""
import asyncio
import json
import os
import re
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, upstream_api_server, write_golden
from upstream_cli import hermes

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "entry-rows"
KEY = "hk_golden_key_0123456789"
MODEL = "gpt-4o-mini"
USAGE = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240, "prompt_tokens_details": {"cached_tokens": 200}}


def reply_for(body):
    msgs = body.get("messages", [])
    if not body.get("tools"):  # an auxiliary call (a title)
        return {"content": "Scripted title"}
    if msgs and msgs[-1].get("role") == "tool":
        return {"content": "done", "reasoning": "thinking about it"}
    call = {"id": f"call_{len(msgs)}", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": "echo hi"})}}
    return {"tool_calls": [call]}


def chunk(delta, finish=None, usage=None):
    c = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": MODEL,
         "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        c["usage"] = usage
    return b"data: " + json.dumps(c).encode() + b"\n\n"


class Provider(ScriptedProvider):
    MODEL = MODEL

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        r = reply_for(body)
        finish = "tool_calls" if r.get("tool_calls") else "stop"
        if body.get("stream"):
            out = [chunk({"role": "assistant"})]
            if r.get("reasoning"):
                out.append(chunk({"reasoning_content": r["reasoning"]}))
            if r.get("content"):
                out.append(chunk({"content": r["content"]}))
            for i, tc in enumerate(r.get("tool_calls", [])):
                out.append(chunk({"tool_calls": [{"index": i, **tc}]}))
            out += [chunk({}, finish), chunk(None, usage=USAGE), b"data: [DONE]\n\n"]
            self._send("text/event-stream", b"".join(out))
        else:
            msg = {"role": "assistant", "content": r.get("content")}
            if r.get("tool_calls"):
                msg["tool_calls"] = r["tool_calls"]
            if r.get("reasoning"):
                msg["reasoning_content"] = r["reasoning"]
            self._send("application/json", json.dumps({
                "id": "c1", "object": "chat.completion", "created": 1, "model": MODEL, "usage": USAGE,
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}]}).encode())


async def api_server(ids, usage):
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    async with upstream_api_server(KEY) as (port, _), aiohttp.ClientSession() as http:
        url = f"http://127.0.0.1:{port}/v1"

        async def post(name, path, body, headers=None):
            async with http.post(url + path, json=body, headers={**auth, **(headers or {})}) as resp:
                assert resp.status == 200, await resp.text()
                ids[name] = resp.headers.get("X-Hermes-Session-Id")
                return await resp.text()

        chat = json.loads(await post("chat", "/chat/completions", {"model": "hermes-agent", "messages": [
            {"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"}]}))
        usage["chat"] = chat["usage"]
        await post("chat_header", "/chat/completions", {"model": "hermes-agent", "messages": [
            {"role": "user", "content": "hi"}]}, {"X-Hermes-Session-Id": "my-session-1"})
        await post("chat_stream", "/chat/completions", {"model": "hermes-agent", "stream": True, "messages": [
            {"role": "user", "content": "hi there"}]})
        first = json.loads(await post("responses", "/responses", {"model": "hermes-agent", "input": "hi",
                                                                  "instructions": "Be brief."}))
        usage["responses"] = first["usage"]
        await post("responses_chained", "/responses", {"model": "hermes-agent", "input": "again",
                                                       "previous_response_id": first["id"]})


SESSION_COLS = [
    "source", "user_id", "session_key", "model", "model_config", "parent_session_id", "end_reason", "message_count",
    "tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "billing_provider",
    "billing_base_url", "billing_mode", "estimated_cost_usd", "actual_cost_usd", "cost_status", "cost_source",
    "pricing_version", "api_call_count",
]
MESSAGE_COLS = ["role", "content", "tool_call_id", "tool_calls", "tool_name", "token_count", "finish_reason", "reasoning",
                "reasoning_content", "reasoning_details"]


def main() -> None:
    provider, base = serve_provider(Provider)
    home = provider_home(base, MODEL, "  api_server: [terminal]\n  cli: [terminal]\n  cron: [terminal]\n")
    os.environ["HERMES_YOLO_MODE"] = "1"
    (home / ".env").write_text("OPENAI_API_KEY=sk-golden\n")
    ids = {}
    newest = "SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1"
    hermes(home, "-z", "say hi")
    with sqlite3.connect(home / "state.db") as con:
        ids["oneshot"] = con.execute(newest).fetchone()[0]
    usage = {}
    asyncio.run(api_server(ids, usage))
    from cron.jobs import create_job
    from cron.scheduler import run_job

    ok, *_ = run_job(create_job("check things", "every 30m", name="Nightly check", deliver="local"))
    assert ok, "the cron run failed"
    with sqlite3.connect(home / "state.db") as con:
        ids["cron"] = con.execute(newest).fetchone()[0]

    from hermes_state import SessionDB

    db = SessionDB()
    gateway_active = len(db.list_gateway_sessions(active_only=True))
    db.close()
    con = sqlite3.connect(home / "state.db")
    con.row_factory = sqlite3.Row
    entries = {}
    for name, sid in ids.items():
        row = con.execute("SELECT * FROM sessions WHERE id = ?", (sid,)).fetchone()
        cols = {c: row[c] for c in SESSION_COLS}
        cols["billing_base_url"] = cols["billing_base_url"] and cols["billing_base_url"].replace(base, "<provider>")
        cols["started_at"] = "set" if row["started_at"] else None
        cols["ended_at"] = "set" if row["ended_at"] else None
        cols["title"] = row["title"] and re.sub(r"[A-Z][a-z]{2} \d\d \d\d:\d\d$", "<Mon DD HH:MM>", row["title"])
        cols["has_system_prompt"] = bool(row["system_prompt"])
        messages = [{c: m[c] for c in MESSAGE_COLS} for m in con.execute(
            "SELECT * FROM messages WHERE session_id = ? ORDER BY id", (sid,))]
        for m in messages:
            if m["role"] == "tool":
                m["content"] = "<tool output>"
            if m["role"] == "user":
                m["content"] = "<prompt>"
        entries[name] = {"session": cols, "messages": messages}
    con.close()
    provider.shutdown()
    write_golden(OUT / "golden.json", "scripts/golden/entry_rows.py", {
        "sameSession": {"responses_chained": ids["responses_chained"] == ids["responses"]},
        "gatewayActive": gateway_active,
        "usage": usage,
        "entries": entries,
    })
    print(f"{len(entries)} entries → {OUT / 'golden.json'}")


if __name__ == "__main__":
    main()
