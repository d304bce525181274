#!/usr/bin/env python3
"""Golden: the text upstream's API server streams when the model writes text, calls a tool, then writes more.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Upstream's APIServerAdapter (its own connect(), golden_setup.upstream_api_server) builds its real AIAgent from a home
whose config.yaml points at a scripted OpenAI-compatible provider (golden_setup.serve_provider) with the terminal
toolset on the api_server platform. Each conversation: the first model call streams FIRST and a terminal `echo` call,
the second streams AFTER and stops ("check it quietly": the first call streams no text). Recorded for a streamed chat completion (the content deltas the client got,
joined) and a streamed Responses call (the output_text deltas joined, and the completed response's output text),
and the assistant rows state.db holds.

Run: PYTHONPATH=<dir with openai and aiohttp 3.14> /usr/bin/python3 scripts/golden/api_tool_break.py
Writes test/fixtures/upstream/api-tool-break/cases.json; replayed by src-main/channels/api-server-terminal.test.ts.
"""
import asyncio
import json
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, sse_chunk, upstream_api_server, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-tool-break" / "cases.json"
KEY = "hk_golden_key_0123456789"
FIRST, AFTER = "Checking.", "All done."


class Provider(ScriptedProvider):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        msgs = body.get("messages", [])
        if not body.get("stream"):  # a title
            data = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "a title"}, "finish_reason": "stop"}]}).encode()
            self._send("application/json", data)
            return
        after_tool = any(m.get("role") == "tool" for m in msgs)
        if after_tool:
            out = sse_chunk("m", {"role": "assistant", "content": AFTER}) + sse_chunk("m", {}, "stop")
        else:
            call = {"index": 0, "id": "call_echo", "type": "function",
                    "function": {"name": "terminal", "arguments": json.dumps({"command": "echo hi"})}}
            first = "" if "quietly" in json.dumps(msgs) else FIRST
            out = (sse_chunk("m", {"role": "assistant", "content": first}) + sse_chunk("m", {"tool_calls": [call]})
                   + sse_chunk("m", {}, "tool_calls"))
        self._send("text/event-stream", out + b"data: [DONE]\n\n")


_server, BASE = serve_provider(Provider)
HOME = provider_home(BASE, toolsets="  api_server: [terminal]\n")


def assistant_rows():
    con = sqlite3.connect(HOME / "state.db")
    rows = [list(r) for r in con.execute("SELECT session_id, content FROM messages WHERE role = 'assistant' ORDER BY id")]
    con.close()
    return rows


async def streamed_text(resp) -> str:
    """The content a streamed chat completion's deltas carry, joined."""
    text = ""
    async for line in resp.content:
        line = line.decode().strip()
        if line.startswith("data: {"):
            for ch in json.loads(line[6:]).get("choices", []):
                text += ch.get("delta", {}).get("content") or ""
    return text


async def record():
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    out = {}
    async with upstream_api_server(KEY) as (port, _adapter):
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            resp = await http.post(f"{base}/v1/chat/completions", headers=auth, json={
                "model": "hermes-agent", "stream": True, "messages": [{"role": "user", "content": "check it"}]})
            text = await streamed_text(resp)
            out["chat"] = {"streamed": text}
            resp = await http.post(f"{base}/v1/chat/completions", headers=auth, json={
                "model": "hermes-agent", "stream": True, "messages": [{"role": "user", "content": "check it quietly"}]})
            text = await streamed_text(resp)
            out["chatQuiet"] = {"streamed": text}
            resp = await http.post(f"{base}/v1/responses", headers=auth, json={
                "model": "hermes-agent", "stream": True, "input": "check it"})
            deltas, completed = "", None
            async for line in resp.content:
                line = line.decode().strip()
                if line.startswith("data: {"):
                    ev = json.loads(line[6:])
                    if ev["type"] == "response.output_text.delta":
                        deltas += ev["delta"]
                    if ev["type"] == "response.completed":
                        completed = "".join(c.get("text", "") for o in ev["response"]["output"]
                                            if o.get("type") == "message" for c in o.get("content", []))
            out["responses"] = {"streamed": deltas, "completedText": completed}
        await asyncio.sleep(0.5)
    out["assistantContents"] = [c for _s, c in assistant_rows()]
    return out


write_golden(OUT, "scripts/golden/api_tool_break.py", {"first": FIRST, "after": AFTER, **asyncio.run(record())})
