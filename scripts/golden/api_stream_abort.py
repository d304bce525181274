#!/usr/bin/env python3
"""Golden: what upstream's API server keeps when a streaming client hangs up mid-reply (a chat UI's Stop button).

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

As api_continue_rows.py: upstream's APIServerAdapter (gateway/platforms/api_server.py, its own connect()) builds its
real AIAgent from the home's config.yaml, which points at a local scripted OpenAI-compatible provider (stdlib
http.server). For a conversation call the provider streams its first words ("first words "), then holds the stream
until the client has hung up, then streams the next ("and then "), waits 1.5 s and streams the rest ("the rest.")
and finishes. Other calls (a title) are
answered at once. Cases, each over a real socket:
- chat: POST /v1/chat/completions, stream, X-Hermes-Session-Id given; the client reads the first text chunk and
  closes the connection. Recorded: the text it got, then (once the agent has stopped) the rows state.db holds for the
  session (role, content, finish_reason) and the session's end_reason/message_count.
- chat_again: the same session asked again (the UI's next message, the cut reply shown before it); recorded: the
  history the provider was given and the rows afterwards.
- chat_ui: the same without a session header, as a chat UI's Stop: hang up after the first text chunk, then resend the
  history with the text the client got as the assistant's, then "go on". Recorded: the stopped session's rows, and
  for the resend: same session or new, what the provider was given, the rows afterwards.
- responses: POST /v1/responses, stream; the client reads response.created and the first text delta, asks
  GET /v1/responses/{id} while the stream is open, then closes. Recorded: the GET during the stream (status, the
  response's status and output), the GET after the agent has stopped, the session's rows, and what the provider
  was given for a response chained onto it by previous_response_id.

Needs the aiohttp upstream pins (pyproject.toml: 3.14.x): from 3.9 on a handler is no longer cancelled when its
client goes, so upstream learns of the hang-up from its next write (Debian's 3.8 would cancel the handler instead).
Run: PYTHONPATH=<dir with openai and aiohttp 3.14> /usr/bin/python3 scripts/golden/api_stream_abort.py
Writes test/fixtures/upstream/api-stream-abort/cases.json; replayed by src-main/channels/api-server-conversation.test.ts.
"""
import asyncio
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

from golden_setup import ScriptedProvider, record_api_server, text_of, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-stream-abort"
KEY = "hk_golden_key_0123456789"
FIRST, NEXT, REST = "first words ", "and then ", "the rest."
SEEN = []
HUNG_UP = threading.Event()  # set by the client once it has closed its connection


class Provider(ScriptedProvider):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        got = [[m["role"], text_of(m.get("content"))] for m in body.get("messages", []) if m["role"] != "system"]
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if got:
            SEEN.append(got)
        if not body.get("stream"):
            reply = f"{FIRST}{NEXT}{REST}" if got else "a title"
            return self._send_completion({"role": "assistant", "content": reply}, "stop", usage)
        held = got and not HUNG_UP.is_set()

        self._start_stream()
        try:
            self.wfile.write(self._event({"role": "assistant", "content": FIRST}))
            self.wfile.flush()
            if held:
                HUNG_UP.wait(10)
                time.sleep(0.3)  # the client's close has reached the server
                # the next words: the server's write of them to the gone client is where it learns of the hang-up
                self.wfile.write(self._event({"content": NEXT}))
                self.wfile.flush()
                time.sleep(1.5)
            self.wfile.write(self._event({"content": REST if held else NEXT + REST})
                             + self._event({}, "stop", {"usage": usage}) + b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True


def rows_of(home, sid):
    db = sqlite3.connect(os.path.join(home, "state.db"))
    rows = [list(r) for r in db.execute(
        "SELECT role, content, finish_reason FROM messages WHERE session_id = ? ORDER BY id", (sid,))]
    session = db.execute("SELECT end_reason, message_count FROM sessions WHERE id = ?", (sid,)).fetchone()
    db.close()
    return rows, (list(session) if session else None)


async def settle(home, sid, count):
    """Wait until the session holds `count` rows or stops changing (the interrupted agent writes them last)."""
    last, same = None, 0
    for _ in range(100):
        rows, _s = rows_of(home, sid)
        if len(rows) >= count or (rows == last and same >= 10):
            break
        same = same + 1 if rows == last else 0
        last = rows
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)


async def first_text(resp):
    """Read a chat completions stream up to its first text chunk: that text (the caller then hangs up)."""
    async for line in resp.content:
        line = line.decode().strip()
        if line.startswith("data: {"):
            text = json.loads(line[6:])["choices"][0]["delta"].get("content")
            if text:
                return text
    return ""


async def record(port, home):
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    base = f"http://127.0.0.1:{port}"
    out = {}
    async with aiohttp.ClientSession() as http:
        # chat: hang up after the first text chunk
        HUNG_UP.clear()
        sid = "golden-abort-chat"
        resp = await http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid}, json={
            "model": "hermes-agent", "stream": True, "messages": [{"role": "user", "content": "tell me a long story"}]})
        got = await first_text(resp)
        resp.close()
        HUNG_UP.set()
        await settle(home, sid, 3)
        rows, session = rows_of(home, sid)
        out["chat"] = {"status": resp.status, "clientGot": got, "rows": rows, "session": session}

        # the UI's next message in that session, the cut reply shown before it
        HUNG_UP.set()
        before = len(SEEN)
        async with http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid}, json={
                "model": "hermes-agent", "messages": [
                    {"role": "user", "content": "tell me a long story"}, {"role": "assistant", "content": got},
                    {"role": "user", "content": "go on"}]}) as again:
            body = await again.json()
        await asyncio.sleep(0.5)
        rows, session = rows_of(home, sid)
        out["chat_again"] = {"status": again.status, "reply": body["choices"][0]["message"]["content"],
                             "providerGot": SEEN[before:], "rows": rows, "session": session}

        # a chat UI without a session header (Open WebUI's Stop): hang up, then resend the history with the text it got
        HUNG_UP.clear()
        ui_sys = {"role": "system", "content": "You are a chat UI's assistant."}
        ask = {"role": "user", "content": "tell me about the sea"}
        resp = await http.post(f"{base}/v1/chat/completions", headers=auth, json={
            "model": "hermes-agent", "stream": True, "messages": [ui_sys, ask]})
        first_sid = resp.headers.get("X-Hermes-Session-Id")
        got = await first_text(resp)
        resp.close()
        HUNG_UP.set()
        await settle(home, first_sid, 2)
        stopped_rows, _s = rows_of(home, first_sid)
        before = len(SEEN)
        async with http.post(f"{base}/v1/chat/completions", headers=auth, json={
                "model": "hermes-agent", "messages": [ui_sys, ask, {"role": "assistant", "content": got},
                                                      {"role": "user", "content": "go on"}]}) as again:
            body = await again.json()
            next_sid = again.headers.get("X-Hermes-Session-Id")
        await asyncio.sleep(0.5)
        rows, session = rows_of(home, next_sid)
        out["chat_ui"] = {"clientGot": got, "stoppedRows": stopped_rows,
                          "next": {"status": again.status, "session": "same" if next_sid == first_sid else "new",
                                   "reply": body["choices"][0]["message"]["content"],
                                   "providerGot": SEEN[before:], "rows": rows, "session_row": session}}

        # responses: read back while streaming, then hang up
        HUNG_UP.clear()
        resp = await http.post(f"{base}/v1/responses", headers=auth, json={
            "model": "hermes-agent", "stream": True, "input": "write me a long poem"})
        rsid = resp.headers.get("X-Hermes-Session-Id")
        rid, got, during = None, "", None
        async for line in resp.content:
            line = line.decode().strip()
            if not line.startswith("data: {"):
                continue
            ev = json.loads(line[6:])
            if ev["type"] == "response.created":
                rid = ev["response"]["id"]
            if ev["type"] == "response.output_text.delta":
                got += ev["delta"]
                async with http.get(f"{base}/v1/responses/{rid}", headers=auth) as g:
                    data = await g.json()
                    during = {"status": g.status, "response": {k: data.get(k) for k in ("status", "output")}}
                break
        resp.close()
        HUNG_UP.set()
        await settle(home, rsid, 2)
        for _ in range(50):  # the stored response leaves in_progress once the server has let the stream go
            async with http.get(f"{base}/v1/responses/{rid}", headers=auth) as g:
                if (await g.json()).get("status") != "in_progress":
                    break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        async with http.get(f"{base}/v1/responses/{rid}", headers=auth) as g:
            data = await g.json()
            after = {"status": g.status, "response": {k: data.get(k) for k in ("status", "output", "usage")}}
        rows, session = rows_of(home, rsid)
        before = len(SEEN)
        async with http.post(f"{base}/v1/responses", headers=auth, json={
                "model": "hermes-agent", "input": "and the next verse", "previous_response_id": rid}) as chained:
            cbody = await chained.json()
        out["responses"] = {"status": resp.status, "clientGot": got, "getDuring": during, "getAfter": after,
                            "rows": rows, "session": session,
                            "chained": {"status": chained.status, "reply": cbody["output"][-1]["content"][0]["text"],
                                        "providerGot": SEEN[before:]}}
    return out


def main() -> None:
    import aiohttp

    if tuple(int(x) for x in aiohttp.__version__.split(".")[:2]) < (3, 9):
        raise SystemExit(f"aiohttp {aiohttp.__version__}: needs 3.9+ (a handler not cancelled when its client goes)")
    recorded = record_api_server(Provider, KEY, record)
    write_golden(OUT / "cases.json", "scripts/golden/api_stream_abort.py",
                 {"first": FIRST, "next": NEXT, "rest": REST, **recorded})
    print(f"{len(recorded)} cases → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
