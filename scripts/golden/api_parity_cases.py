#!/usr/bin/env python3
"""Golden answers of upstream's API server, with its real agent, for requests where Caduceus's answered otherwise.

As api_continue_rows.py: upstream's APIServerAdapter (gateway/platforms/api_server.py, its own connect()) builds its
real AIAgent from the home's config.yaml, which points at a local scripted OpenAI-compatible provider (stdlib
http.server; each reply is "reply <n>", n counting the calls that carried a conversation). Cases:
- header_bytes: a chat request written on a raw socket whose X-Hermes-Session-Id and X-Hermes-Session-Key carry
  bytes that are not UTF-8; recorded: status, both echoed headers (their bytes as Latin-1 text), the reply, and
  whether state.db then holds a session under the echoed id.
- header_bytes_only: the same with a session id, then (another request) a session key, made only of such bytes;
  recorded likewise, plus the sessions state.db holds after each.
- runs_items / responses_items: /v1/runs and /v1/responses given input items of each kind (replayed tool items, an
  item without a role, a bare string, a function_call_output alone); recorded: status and error message.
- rag: three streamed turns of an Open WebUI conversation with retrieval (its default: the retrieval template, sources
  and query, put before the last user message of the request that retrieved them; `files`, `metadata` and `user`
  sent too); recorded per turn: the session (as "new" or "same as turn N") and what the provider was given.
- system_changes: three chat turns of one conversation whose system message changes every turn (a date and a user
  context, as Open WebUI fills them in); recorded per turn: the session (as in rag) and whether the provider's system
  text held the request's.
- window: four chat turns whose client drops the oldest exchange once the history is long (a context window: turn 3
  leaves out the first exchange, turn 4 the first two); recorded per turn: the session (as in rag).
- chained: a Response, a chained one whose input holds three messages, then one more chained; recorded per request:
  what the provider was given.
- malformed: a body that is not JSON sent to each turn route; recorded: status and error message.
Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/api_parity_cases.py
Writes test/fixtures/upstream/api-parity/cases.json; replayed by src-main/channels/api-upstream-parity.test.ts.
"""
import asyncio
import json
import os
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, text_of, upstream_api_server, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-parity"
KEY = "hk_golden_key_0123456789"
SEEN = []
SYSTEMS = []  # the system text of each recorded call, beside SEEN


class Provider(ScriptedProvider):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        # (an auxiliary call without the conversation, e.g. the title, is answered but not recorded)
        got = [[m["role"], text_of(m.get("content"))] for m in body.get("messages", []) if m["role"] != "system"]
        if got:
            SEEN.append(got)
            SYSTEMS.append("\n".join(text_of(m.get("content")) for m in body.get("messages", []) if m["role"] == "system"))
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


# The bytes each header carries: an id with two bytes that start no UTF-8 sequence, a key with a lone lead byte.
SESSION_ID_BYTES = b"abc\xff\xfedef"
SESSION_KEY_BYTES = b"key-\xe91"


async def raw_chat(port, extra=None, text="odd bytes"):
    """A chat request with the odd header bytes, over a plain socket (aiohttp's client sends text headers only)."""
    body = json.dumps({"model": "hermes-agent", "messages": [{"role": "user", "content": text}]}).encode()
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {KEY}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n").encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if extra is None:
        extra = b"X-Hermes-Session-Id: " + SESSION_ID_BYTES + b"\r\nX-Hermes-Session-Key: " + SESSION_KEY_BYTES + b"\r\n"
    writer.write(head + extra + b"\r\n" + body)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, rest = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    status = int(lines[0].split()[1])
    return status, headers, json.loads(rest) if headers.get("content-type", "").startswith("application/json") else None


FC = {"type": "function_call", "call_id": "call_7", "name": "lookup", "arguments": "{}"}
FCO = {"type": "function_call_output", "call_id": "call_7", "output": "found"}
ITEMS = [
    ("replayed_tool_items", [{"role": "user", "content": "look it up"}, FC, FCO,
                             {"role": "user", "content": "and what did it find?"}]),
    ("item_without_role", [{"content": "an item with no role"}]),
    ("bare_string", ["a bare string"]),
    ("call_output_alone", [FCO]),
    ("call_and_output_last", [{"role": "user", "content": "look it up"}, FC, FCO]),
]


def rag_template(source, query):
    """A retrieval prompt shaped like Open WebUI's default (task, rules, the sources in <source> tags, the query)."""
    return (f"### Task:\nAnswer the query from the sources below, citing [id] where a source has one.\n\n<context>\n"
            f'<source id="1" name="handbook.pdf">{source}</source>\n</context>\n\n<user_query>\n{query}\n</user_query>\n')


RAG_TURNS = [("What is the refund window?", "Refunds are accepted within 30 days."),
             ("And for sale items?", "Sale items: 14 days."),
             ("Who pays shipping?", "The buyer pays shipping.")]
RAG_EXTRA = {"files": [{"type": "file", "id": "f-1", "name": "handbook.pdf", "status": "uploaded"}],
             "metadata": {"chat_id": "chat-1", "message_id": "m-1", "features": {"web_search": False}}, "user": "u-1"}


async def record(port, home):
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    out = {}
    status, headers, body = await raw_chat(port)
    echoed = headers.get("x-hermes-session-id")
    db = sqlite3.connect(os.path.join(home, "state.db"))
    stored = db.execute("SELECT COUNT(*) FROM sessions WHERE id = ?", (echoed,)).fetchone()[0] if echoed else 0
    db.close()
    out["header_bytes"] = {
        "sentSessionId": SESSION_ID_BYTES.decode("latin-1"), "sentSessionKey": SESSION_KEY_BYTES.decode("latin-1"),
        "status": status, "echoedSessionId": echoed, "echoedSessionKey": headers.get("x-hermes-session-key"),
        "reply": body["choices"][0]["message"]["content"] if body and "choices" in body else None,
        "storedUnderEchoedId": bool(stored),
    }
    only = {}
    for name, header in (("session_id", b"X-Hermes-Session-Id: \xff\xfe\r\n"), ("session_key", b"X-Hermes-Session-Key: \xe9\xff\r\n")):
        status, headers, body = await raw_chat(port, header, f"only odd bytes in the {name}")
        db = sqlite3.connect(os.path.join(home, "state.db"))
        rows = db.execute("SELECT s.id, m.content FROM sessions s JOIN messages m ON m.session_id = s.id"
                          " WHERE m.role = 'user' AND m.content = ?", (f"only odd bytes in the {name}",)).fetchall()
        db.close()
        only[name] = {"sent": header.split(b": ", 1)[1].strip().decode("latin-1"), "status": status,
                      "echoedSessionId": headers.get("x-hermes-session-id"),
                      "echoedSessionKey": headers.get("x-hermes-session-key"),
                      "reply": body["choices"][0]["message"]["content"] if body and "choices" in body else None,
                      "error": body["error"]["message"] if body and "error" in body else None,
                      "storedIn": [r[0] for r in rows]}
    out["header_bytes_only"] = only
    async with aiohttp.ClientSession() as http:
        async def post(path, payload):
            async with http.post(f"http://127.0.0.1:{port}{path}", json=payload, headers=auth) as resp:
                text = await resp.text()
                try:
                    data = json.loads(text)
                except ValueError:
                    data = None
                return resp.status, data, resp.headers.get("X-Hermes-Session-Id")

        for route in ("runs", "responses"):
            cases = {}
            for name, items in ITEMS:
                status, data, _ = await post(f"/v1/{route}", {"model": "hermes-agent", "input": items})
                cases[name] = {"status": status,
                               **({"error": data["error"]["message"]} if data and "error" in data else {})}
            out[f"{route}_items"] = cases
        await asyncio.sleep(0.5)  # the runs started above finish before the next cases count provider calls

        turns, sessions, history = [], [], []
        for query, source in RAG_TURNS:
            messages = [{"role": "system", "content": "You are a helpful assistant."}, *history,
                        {"role": "user", "content": f"{rag_template(source, query)}\n{query}"}]
            before = len(SEEN)
            async with http.post(f"http://127.0.0.1:{port}/v1/chat/completions", headers=auth, json={
                    "model": "hermes-agent", "messages": messages, "stream": True, **RAG_EXTRA}) as resp:
                status, sid = resp.status, resp.headers.get("X-Hermes-Session-Id")
                reply = ""
                async for line in resp.content:
                    line = line.decode().strip()
                    if line.startswith("data: {"):
                        chunk = json.loads(line[6:])
                        for choice in chunk.get("choices", []):
                            reply += choice.get("delta", {}).get("content") or ""
            turns.append({"query": query, "source": source, "status": status, "reply": reply,
                          "session": f"same as turn {sessions.index(sid) + 1}" if sid in sessions else "new",
                          "providerGot": SEEN[before:]})
            sessions.append(sid)
            history += [{"role": "user", "content": query}, {"role": "assistant", "content": reply}]
        out["rag"] = turns

        async def chat_turn(messages, sids):
            """One non-streamed chat request; its session as in rag (sids: the sessions of the turns before)."""
            before = len(SEEN)
            status, data, sid = await post("/v1/chat/completions", {"model": "hermes-agent", "messages": messages})
            system = next((m["content"] for m in messages if m["role"] == "system"), "")
            turn = {"messages": messages, "status": status, "reply": data["choices"][0]["message"]["content"],
                    "session": f"same as turn {sids.index(sid) + 1}" if sid in sids else "new",
                    "systemSeen": bool(SYSTEMS[before:]) and all(system in t for t in SYSTEMS[before:])}
            sids.append(sid)
            return turn

        sids, said, turns = [], [], []
        for i, (day, context) in enumerate([("Monday", "likes tea"), ("Tuesday", "likes tea"),
                                            ("Wednesday", "likes coffee")]):
            said.append({"role": "user", "content": f"what should I do today ({i + 1})?"})
            system = {"role": "system", "content": f"Today is {day}.\nUser context: {context}."}
            turns.append(await chat_turn([system, *said], sids))
            said.append({"role": "assistant", "content": turns[-1]["reply"]})
        out["system_changes"] = turns

        sids, said, turns = [], [], []
        system = {"role": "system", "content": "You are a terse bard."}
        for i, dropped in enumerate([0, 0, 2, 4]):
            said.append({"role": "user", "content": f"verse {i + 1}"})
            turns.append(await chat_turn([system, *said[dropped:]], sids))
            said.append({"role": "assistant", "content": turns[-1]["reply"]})
        out["window"] = turns

        chained = []
        inputs = ["chain opener",
                  [{"role": "user", "content": "new A"}, {"role": "assistant", "content": "said between"},
                   {"role": "user", "content": "new B"}],
                  "and then"]
        previous = None
        for given in inputs:
            before = len(SEEN)
            status, data, _ = await post("/v1/responses", {"model": "hermes-agent", "input": given,
                                                          **({"previous_response_id": previous} if previous else {})})
            previous = data["id"]
            chained.append({"input": given, "status": status, "reply": data["output"][-1]["content"][0]["text"],
                            "providerGot": SEEN[before:]})
        out["chained"] = chained

        malformed = {}
        for route in ("chat/completions", "responses", "runs"):
            async with http.post(f"http://127.0.0.1:{port}/v1/{route}", data=b"{not json",
                                 headers={**auth, "Content-Type": "application/json"}) as resp:
                data = await resp.json()
                malformed[route] = {"status": resp.status, "error": data["error"]["message"]}
        out["malformed"] = malformed
    return out


async def main_async(home):
    async with upstream_api_server(KEY) as (port, _):
        return await record(port, home)


def main() -> None:
    provider, base_url = serve_provider(Provider)
    home = provider_home(base_url)
    recorded = asyncio.run(main_async(str(home)))
    provider.shutdown()
    write_golden(OUT / "cases.json", "scripts/golden/api_parity_cases.py", recorded)
    print(f"{len(recorded)} groups → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
