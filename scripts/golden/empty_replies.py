#!/usr/bin/env python3
"""Golden: what upstream's agent loop does with a reply that has nothing to show (agent/conversation_loop.py, the
no-tool-call branch: thinking-only prefill, empty-reply retries, the "(empty)" end).

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Upstream's APIServerAdapter (golden_setup.upstream_api_server) with its real AIAgent, on a home whose config.yaml
points at a scripted OpenAI-compatible provider (golden_setup.serve_provider). The provider answers a conversation by
the case named in its first user message, streamed (upstream streams every call):
- think: content "<think>…</think>" only, every time;
- field: content "" with the provider's own `reasoning_content`, every time;
- blank: content "", no reasoning, every time;
- blank_once: content "" the first time, then "Recovered.";
- after_tool: a terminal `echo` call the first time (no text), content "" every time after;
- after_tool_think: the same call, then content "<think>…</think>" only every time after.
Each case is asked once streamed (X-Hermes-Session-Id given) and once not streamed (another session), and blank once
more as a streamed Responses call (its text deltas and completed text). Recorded: every
request's messages (all keys, the system message left out), the content deltas the streaming client got, the non-
streamed reply's content and finish_reason, and the session's rows.

Run: PYTHONPATH=/tmp/cronpylib /usr/bin/python3 scripts/golden/empty_replies.py
Writes test/fixtures/upstream/empty-replies/cases.json; replayed by src-main/channels/api-server-conversation.test.ts.
"""
import asyncio
import json
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, sse_chunk, upstream_api_server, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "empty-replies" / "cases.json"
KEY = "hk_golden_key_0123456789"
CASES = ["think", "field", "blank", "blank_once", "after_tool", "after_tool_think"]
SEEN = {}  # case -> list of message lists


def case_of(messages):
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            for c in sorted(CASES, key=len, reverse=True):
                if m["content"].startswith(f"case {c} "):
                    return c
    return None


class Provider(ScriptedProvider):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        msgs = body.get("messages", [])
        case = case_of(msgs)
        key = msgs[-1]["content"] if msgs and msgs[0].get("role") != "system" else None
        if not body.get("stream") or case is None:  # a title
            data = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "a title"}, "finish_reason": "stop"}]}).encode()
            self._send("application/json", data)
            return
        sent = [m for m in msgs if m.get("role") != "system"]
        user = next(m["content"] for m in sent if m["role"] == "user")
        SEEN.setdefault(user, []).append(sent)
        n = len(SEEN[user])
        if case.startswith("after_tool") and n == 1:
            call = {"index": 0, "id": "call_echo", "type": "function",
                    "function": {"name": "terminal", "arguments": json.dumps({"command": "echo hi"})}}
            deltas = [{"role": "assistant", "content": None, "tool_calls": [call]}]
        elif case in ("think", "after_tool_think"):
            deltas = [{"role": "assistant", "content": "<think>all reasoning, "}, {"content": "no answer</think>"}]
        elif case == "field":
            deltas = [{"role": "assistant", "reasoning_content": "thinking hard"}, {"content": ""}]
        elif case in ("blank", "after_tool") or n == 1:
            deltas = [{"role": "assistant", "content": ""}]
        else:
            deltas = [{"role": "assistant", "content": "Recovered."}]
        finish = "tool_calls" if "tool_calls" in deltas[0] else "stop"
        out = b"".join(sse_chunk("m", d) for d in deltas) + sse_chunk("m", {}, finish) + b"data: [DONE]\n\n"
        self._send("text/event-stream", out)


_server, BASE = serve_provider(Provider)
HOME = provider_home(BASE, toolsets="  api_server: [terminal]\n")


def rows_of(sid):
    con = sqlite3.connect(HOME / "state.db")
    rows = [list(r) for r in con.execute(
        "SELECT role, content, reasoning, reasoning_content, finish_reason, tool_calls IS NOT NULL"
        " FROM messages WHERE session_id = ? ORDER BY id",
        (sid,))]
    con.close()
    return rows


async def record():
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    out = {}
    async with upstream_api_server(KEY) as (port, _adapter):
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            for case in CASES:
                sid = f"golden-empty-{case}"
                msg = f"case {case} streamed"
                resp = await http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid},
                                       json={"model": "hermes-agent", "stream": True,
                                             "messages": [{"role": "user", "content": msg}]})
                deltas = []
                async for line in resp.content:
                    line = line.decode().strip()
                    if line.startswith("data: {"):
                        for ch in json.loads(line[6:]).get("choices", []):
                            if ch.get("delta", {}).get("content"):
                                deltas.append(ch["delta"]["content"])
                await asyncio.sleep(0.3)
                streamed = {"clientDeltas": deltas, "providerGot": SEEN.get(msg, []), "rows": rows_of(sid)}
                sid2 = f"golden-empty-{case}-plain"
                msg2 = f"case {case} plain"
                async with http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid2},
                                     json={"model": "hermes-agent",
                                           "messages": [{"role": "user", "content": msg2}]}) as r:
                    body = await r.json()
                await asyncio.sleep(0.3)
                choice = body["choices"][0]
                plain = {"status": r.status, "content": choice["message"]["content"],
                         "finishReason": choice["finish_reason"], "requests": len(SEEN.get(msg2, [])),
                         "rows": rows_of(sid2)}
                out[case] = {"streamed": streamed, "plain": plain}
            # A streamed Responses call of a blank model: the text deltas and the completed response's text.
            resp = await http.post(f"{base}/v1/responses", headers=auth, json={
                "model": "hermes-agent", "stream": True, "input": "case blank responses"})
            deltas, completed = [], None
            async for line in resp.content:
                line = line.decode().strip()
                if line.startswith("data: {"):
                    ev = json.loads(line[6:])
                    if ev["type"] == "response.output_text.delta":
                        deltas.append(ev["delta"])
                    if ev["type"] == "response.completed":
                        completed = "".join(c.get("text", "") for o in ev["response"]["output"]
                                            if o.get("type") == "message" for c in o.get("content", []))
            out["blank_responses_stream"] = {"deltas": deltas, "completedText": completed}
    return out


CASES_OUT = asyncio.run(record())
RESPONSES_OUT = CASES_OUT.pop("blank_responses_stream")
write_golden(OUT, "scripts/golden/empty_replies.py", {"cases": CASES_OUT, "blankResponsesStream": RESPONSES_OUT})
