#!/usr/bin/env python3
"""Golden: what upstream does with a model that writes its reasoning inline as <think>…</think> in the content.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Two parts, both by upstream's own code:
- scrubber: streamed deltas (tags split across chunks, unclosed blocks, prose naming a tag, orphan closes) fed one by
  one to a fresh agent/think_scrubber.py StreamingThinkScrubber, then flush(); recorded: what each feed returned and
  the flush. These are what every upstream stream consumer is handed.
- api: upstream's APIServerAdapter (gateway/platforms/api_server.py) with its real AIAgent, as api_stream_abort.py,
  against a scripted OpenAI-compatible provider (stdlib http.server) that streams replies carrying inline reasoning
  in the deltas given below (a tag split across chunks). Cases over real sockets: chat completions streamed (the
  content deltas the client got), the same session asked again (what the provider was sent back), not streamed,
  Responses (not streamed and streamed), a turn whose first call is a tool call with think text, an unclosed block,
  and a model that only ever reasons (no answer outside the block; replayed with the other empty replies by
  scripts/golden/empty_replies.py).
  For each: the session's messages rows (role, content, reasoning, reasoning_content), and the title stored.

Run: PYTHONPATH=/tmp/cronpylib /usr/bin/python3 scripts/golden/inline_think.py   (/tmp/cronpylib holds the `openai`
package upstream's agent imports; the system aiohttp 3.8 serves these cases, none of which hangs up mid-stream)
Writes test/fixtures/upstream/inline-think/cases.json; replayed by src-main/agent/think-scrub.test.ts and
src-main/channels/api-server-conversation.test.ts.
"""
import asyncio
import json
import os
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, record_api_server, text_of, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "inline-think"
KEY = "hk_golden_key_0123456789"
SEEN = []

# the reply streamed for a user message containing the key (deltas as the provider sends them)
REPLIES = {
    "sum": ["<thi", "nk>The user wants 2+2.", " Easy.</th", "ink>\n\nThe answer", " is 4."],
    "again": ["<think>Second turn plan.</think>", "Still 4."],
    "plain": ["<thinking>quiet plan</thinking>Plain answer."],
    "resp": ["<think>resp plan</think>", "Responses answer."],
    "unclosed": ["Before.\n", "<think>never closes ", "and runs on"],
    "only": ["<think>all reasoning, ", "no answer</think>"],  # every time it is asked
    "tool": ["<think>I need the list.</think>"],  # plus a todo tool call
    "after_tool": ["<think>Got it.</think>", "The list is empty."],
}
TITLE = "<think>naming it</think>Sum Question"
SCRUB_CASES = [
    ["<thi", "nk>plan</th", "ink>Answer"],
    ["<think>plan</think>", "\n\nAnswer ", "done."],
    ["Hello <", "b>"],
    ["Hello <thi"],
    ["Before.\n", "<think>never closes"],
    ["use <think> tags", " here"],
    ["Line one\n  <thinking>", "x</thinking>two"],
    ["text </think>", " orphan"],
    ["<THINK>A</THINK>B", "<reasoning>c</reasoning>", "D<thought>e</thought>E"],
    ["<REASONING_SCRATCHPAD>s</REASONING_", "SCRATCHPAD>done"],
    ["a < b", " and c"],
    ["x <think>y</think> z"],
    ["<think>only reasoning</think>"],
    ["Answer\n<think>", "tail"],
]


def reply_for(messages):
    if messages and messages[-1]["role"] == "tool":
        return "after_tool"
    last = text_of(next((m for m in reversed(messages) if m["role"] == "user"), {}).get("content"))
    for key in REPLIES:
        if key in last:
            return key
    return None


class Provider(ScriptedProvider):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        msgs = body.get("messages", [])
        key = reply_for(msgs)
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if key is None:  # a title request
            SEEN.append({"kind": "other", "stream": bool(body.get("stream"))})
            return self._send("application/json", json.dumps({
                "id": "c", "object": "chat.completion", "created": 1, "model": "m", "usage": usage,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": TITLE}, "finish_reason": "stop"}],
            }).encode())
        SEEN.append({"kind": key, "messages": [
            {k: m[k] for k in ("role", "content", "reasoning", "reasoning_content", "tool_calls", "tool_call_id")
             if k in m} for m in msgs if m["role"] != "system"]})
        deltas = REPLIES[key]
        tool = key == "tool"
        if not body.get("stream"):
            msg = {"role": "assistant", "content": "".join(deltas)}
            if tool:
                msg["tool_calls"] = [{"id": "call_1", "type": "function",
                                      "function": {"name": "todo", "arguments": "{}"}}]
            return self._send_completion(msg, "tool_calls" if tool else "stop", usage)

        self._start_stream()
        out = b""
        for i, d in enumerate(deltas):
            out += self._event({"role": "assistant", "content": d} if i == 0 else {"content": d})
        if tool:
            out += self._event({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                                "function": {"name": "todo", "arguments": "{}"}}]})
        out += self._event({}, "tool_calls" if tool else "stop", {"usage": usage}) + b"data: [DONE]\n\n"
        self.wfile.write(out)
        self.wfile.flush()
        self.close_connection = True


def rows_of(home, sid):
    db = sqlite3.connect(os.path.join(home, "state.db"))
    rows = [list(r) for r in db.execute(
        "SELECT role, content, reasoning, reasoning_content, tool_calls IS NOT NULL FROM messages"
        " WHERE session_id = ? ORDER BY id", (sid,))]
    title = db.execute("SELECT title FROM sessions WHERE id = ?", (sid,)).fetchone()
    db.close()
    return rows, (title[0] if title else None)


async def settled_title(home, sid):
    for _ in range(30):  # the title is generated in the background after the first exchange
        _rows, title = rows_of(home, sid)
        if title:
            return title
        await asyncio.sleep(0.1)
    return None


async def stream_chat(http, base, auth, sid, messages):
    deltas = []
    async with http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid}, json={
            "model": "hermes-agent", "stream": True, "messages": messages}) as resp:
        async for line in resp.content:
            line = line.decode().strip()
            if line.startswith("data: {"):
                choices = json.loads(line[6:]).get("choices") or [{}]  # tool progress events carry none
                c = (choices[0].get("delta") or {}).get("content")
                if c:
                    deltas.append(c)
    return deltas


async def record(port, home):
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    base = f"http://127.0.0.1:{port}"
    out = {}

    def sent(before):
        return [s for s in SEEN[before:] if s["kind"] != "other"]

    async with aiohttp.ClientSession() as http:
        sid = "golden-think-chat"
        ask = {"role": "user", "content": "what is the sum of 2+2"}
        before = len(SEEN)
        deltas = await stream_chat(http, base, auth, sid, [ask])
        title = await settled_title(home, sid)
        rows, _t = rows_of(home, sid)
        out["chat_stream"] = {"clientDeltas": deltas, "rows": rows, "title": title, "providerGot": sent(before)}

        before = len(SEEN)
        deltas = await stream_chat(http, base, auth, sid, [ask, {"role": "assistant", "content": "".join(deltas)},
                                                           {"role": "user", "content": "again please"}])
        rows, _t = rows_of(home, sid)
        out["chat_again"] = {"clientDeltas": deltas, "rows": rows, "providerGot": sent(before)}

        sid = "golden-think-plain"
        async with http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid}, json={
                "model": "hermes-agent", "messages": [{"role": "user", "content": "plain please"}]}) as resp:
            body = await resp.json()
        rows, _t = rows_of(home, sid)
        out["chat_plain"] = {"reply": body["choices"][0]["message"], "rows": rows}

        async with http.post(f"{base}/v1/responses", headers=auth, json={
                "model": "hermes-agent", "input": "resp please", "store": True}) as resp:
            body = await resp.json()
            rsid = resp.headers.get("X-Hermes-Session-Id")
        rows, _t = rows_of(home, rsid) if rsid else ([], None)
        out["responses"] = {"output": body.get("output"), "rows": rows}

        events = []
        async with http.post(f"{base}/v1/responses", headers=auth, json={
                "model": "hermes-agent", "input": "resp please, streamed", "stream": True}) as resp:
            async for line in resp.content:
                line = line.decode().strip()
                if line.startswith("data: {"):
                    ev = json.loads(line[6:])
                    if ev["type"] == "response.output_text.delta":
                        events.append(["delta", ev["delta"]])
                    elif ev["type"] == "response.completed":
                        events.append(["completed", ev["response"]["output"]])
        out["responses_stream"] = {"events": events}

        sid = "golden-think-tool"
        before = len(SEEN)
        deltas = await stream_chat(http, base, auth, sid, [{"role": "user", "content": "use a tool please"}])
        rows, _t = rows_of(home, sid)
        out["tool_turn"] = {"clientDeltas": deltas, "rows": rows, "providerGot": sent(before)}

        sid = "golden-think-unclosed"
        before = len(SEEN)
        deltas = await stream_chat(http, base, auth, sid, [{"role": "user", "content": "unclosed please"}])
        rows, _t = rows_of(home, sid)
        out["unclosed"] = {"clientDeltas": deltas, "rows": rows, "providerCalls": len(sent(before))}

        sid = "golden-think-only"
        before = len(SEEN)
        deltas = await stream_chat(http, base, auth, sid, [{"role": "user", "content": "only think please"}])
        rows, _t = rows_of(home, sid)
        out["reasoning_only"] = {"clientDeltas": deltas, "rows": rows, "providerGot": sent(before)}
    return out


def scrub_cases():
    from agent.think_scrubber import StreamingThinkScrubber

    cases = []
    for deltas in SCRUB_CASES:
        s = StreamingThinkScrubber()
        cases.append({"deltas": deltas, "fed": [s.feed(d) for d in deltas], "flush": s.flush()})
    return cases


def main() -> None:
    recorded = record_api_server(Provider, KEY, record, toolsets="  api_server: [todo]\n")
    scrub = scrub_cases()
    write_golden(OUT / "cases.json", "scripts/golden/inline_think.py",
                 {"replies": REPLIES, "title": TITLE, "scrubber": scrub, **recorded})
    print(f"{len(recorded)} api cases, {len(scrub)} scrubber cases → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
