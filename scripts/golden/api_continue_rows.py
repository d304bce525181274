#!/usr/bin/env python3
"""Golden rows upstream's API server stores for a chat UI's "Continue", with its real agent.

api_server_http.py replaces the agent; here nothing is: upstream's APIServerAdapter (gateway/platforms/api_server.py,
its own connect()) builds its real AIAgent from the home's config.yaml, which points at a local scripted
OpenAI-compatible provider (stdlib http.server, streamed SSE; each reply is "reply <n>"). Requests go over a real
socket without X-Hermes-Session-Id, as SillyTavern sends them:
1. the story asked, then the assistant's unfinished reply as the last message (Continue);
2. the resend that follows: the continued reply shown as one assistant message, then the next user message;
3-5. another conversation: a reply, Continue with SillyTavern's nudge (a system message) after it, then the next
   message without the nudge, the reply shown continued.
Recorded per step: the session the answer names (as "same as step N" or "new"), the messages the provider was given
(role and text, the system prompt left out) and the rows upstream's state.db holds for that session afterwards.

Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/api_continue_rows.py
Writes test/fixtures/upstream/api-continue/cases.json; replayed by src-main/channels/api-server-continue.test.ts.
"""
import asyncio
import json
import os
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, text_of, upstream_api_server, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-continue"
KEY = "hk_golden_key_0123456789"
SEEN = []


class Provider(ScriptedProvider):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        # (an auxiliary call without the conversation, e.g. the title, is answered but not recorded)
        got = [[m["role"], text_of(m.get("content"))] for m in body.get("messages", []) if m["role"] != "system"]
        if got:
            SEEN.append(got)
        reply = f"reply {len(SEEN)}" if got else "a title"
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if body.get("stream"):
            chunks = [
                {"choices": [{"index": 0, "delta": {"role": "assistant", "content": reply}, "finish_reason": None}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage},
            ]
            data = b"".join(b"data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1,
                                                    "model": "m", **c}).encode() + b"\n\n" for c in chunks)
            self._send("text/event-stream", data + b"data: [DONE]\n\n")
        else:
            self._send("application/json", json.dumps({
                "id": "c", "object": "chat.completion", "created": 1, "model": "m", "usage": usage,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            }).encode())


SYSTEM = {"role": "system", "content": "You are Seraphina."}
ASK = {"role": "user", "content": "tell me a story"}
NUDGE = {"role": "system", "content": "[Continue your last message without repeating its original content.]"}


POEM = {"role": "user", "content": "write me a poem"}


def steps(replies):
    """The requests in order; later ones show the replies earlier ones got, as the chat UI shows them."""
    # Continue with the unfinished reply last (SillyTavern's "continue prefill"), then the next message
    yield [SYSTEM, ASK, {"role": "assistant", "content": "Once upon a time"}]
    yield [SYSTEM, ASK, {"role": "assistant", "content": f"Once upon a time {replies[0]}"},
           {"role": "user", "content": "and then?"}]
    # SillyTavern's default: a reply, then Continue with its nudge after it (another system text: another session
    # upstream), then the next message without the nudge
    yield [SYSTEM, POEM]
    yield [SYSTEM, POEM, {"role": "assistant", "content": replies[2]}, NUDGE]
    yield [SYSTEM, POEM, {"role": "assistant", "content": f"{replies[2]} {replies[3]}"},
           {"role": "user", "content": "another verse"}]


async def record(port, home):
    import aiohttp

    out, sessions, replies = [], [], []
    async with aiohttp.ClientSession() as http:
        gen = steps(replies)
        for messages in gen:
            before = len(SEEN)
            async with http.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={"model": "hermes-agent", "messages": messages},
                                 headers={"Authorization": f"Bearer {KEY}"}) as resp:
                status, body = resp.status, await resp.json()
                sid = resp.headers.get("X-Hermes-Session-Id")
            reply = body["choices"][0]["message"]["content"]
            replies.append(reply)
            db = sqlite3.connect(os.path.join(home, "state.db"))
            rows = [list(r) for r in db.execute(
                "SELECT role, content FROM messages WHERE session_id = ? ORDER BY id", (sid,))]
            db.close()
            out.append({
                "request": messages,
                "status": status,
                "reply": reply,
                "session": f"same as step {sessions.index(sid) + 1}" if sid in sessions else "new",
                "providerGot": SEEN[before:],
                "rows": rows,
            })
            sessions.append(sid)
    return out


async def main_async(home):
    async with upstream_api_server(KEY) as (port, _):
        return await record(port, home)


def main() -> None:
    provider, base_url = serve_provider(Provider)
    home = provider_home(base_url)
    recorded = asyncio.run(main_async(str(home)))
    provider.shutdown()
    write_golden(OUT / "cases.json", "scripts/golden/api_continue_rows.py", {"steps": recorded})
    print(f"{len(recorded)} steps → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
