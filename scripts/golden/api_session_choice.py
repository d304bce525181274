#!/usr/bin/env python3
"""Golden: which session upstream's API server runs each request in — a new one, or one an earlier request used.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Starts upstream's APIServerAdapter with its own connect() (gateway/platforms/api_server.py) on a free 127.0.0.1 port;
only the agent is replaced (as api_server_http.py does): a scripted agent records the session_id the server hands
it and answers a fixed reply. Requests go over a real socket, in order, to /v1/responses, /v1/chat/completions and
/v1/runs: identical requests sent twice, chains by previous_response_id and by conversation name, explicit
conversation_history, a store:false response chained onto, X-Hermes-Session-Id / X-Hermes-Session-Key headers, and
a chat UI resending its history.

Recorded per step: status, and `session`: "new" (a session no earlier step ran in) or "same as <step>" (the first
step that ran in it), plus `shape`: "uuid4", "derived" (api-<16 hex>), "run_id" (run_<hex>) or "given" (the id a
step sent). Upstream's ids are random, so only these relations are data.

Usage: /usr/bin/python3 scripts/golden/api_session_choice.py
Needs Debian's python3-aiohttp, python3-yaml, python3-dotenv, python3-httpx and python3-requests.
Env: HERMES_UPSTREAM (default /work/upstream) is the upstream checkout to import.
Writes test/fixtures/upstream/api-session-choice/cases.json; replayed by src-main/channels/api-upstream-parity.test.ts.
"""
import asyncio
import json
import re
from pathlib import Path

from golden_setup import upstream_api_server, upstream_home, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-session-choice"
KEY = "hk_golden_key_0123456789"
REPLY = "Hello from the agent."
AUTH = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
GIVEN = "my-own-session-1"
SESSIONS = []  # session ids handed to the agent, in order


class ScriptedAgent:
    def __init__(self, session_id=None, stream_delta_callback=None, **_):
        self.session_id = session_id
        self.stream = stream_delta_callback
        self.session_prompt_tokens, self.session_completion_tokens, self.session_total_tokens = (3, 2, 5)

    def interrupt(self, *_a, **_k):
        pass

    def run_conversation(self, user_message, conversation_history=None, task_id=None):
        SESSIONS.append(self.session_id)
        if self.stream:
            self.stream(REPLY)
        messages = list(conversation_history or []) + [
            {"role": "user", "content": user_message}, {"role": "assistant", "content": REPLY}]
        return {"final_response": REPLY, "messages": messages, "completed": True}


def steps():
    """(name, path, extra headers, body); `<resp:NAME>` is the response id step NAME got, `<sid:NAME>` its session."""
    hello = {"model": "hermes-agent", "input": "hello"}
    chat = [{"role": "user", "content": "hello"}]
    return [
        ("responses_fresh", "/v1/responses", {}, hello),
        ("responses_fresh_again", "/v1/responses", {}, hello),
        ("responses_fresh_stream", "/v1/responses", {}, {**hello, "stream": True}),
        ("responses_fresh_instructions", "/v1/responses", {}, {**hello, "instructions": "Be terse."}),
        ("responses_fresh_instructions_again", "/v1/responses", {}, {**hello, "instructions": "Be terse."}),
        ("responses_chain", "/v1/responses", {}, {"input": "and then?", "previous_response_id": "<resp:responses_fresh>"}),
        ("responses_chain_stream", "/v1/responses", {},
         {"input": "more", "previous_response_id": "<resp:responses_chain>", "stream": True}),
        ("responses_session_header", "/v1/responses", {"X-Hermes-Session-Id": "<sid:responses_fresh>"}, hello),
        ("responses_session_header_given", "/v1/responses", {"X-Hermes-Session-Id": GIVEN}, hello),
        ("responses_memory_key", "/v1/responses", {"X-Hermes-Session-Key": "agent:main:webui:dm:u1"}, hello),
        ("responses_memory_key_again", "/v1/responses", {"X-Hermes-Session-Key": "agent:main:webui:dm:u1"}, hello),
        ("responses_conversation_first", "/v1/responses", {}, {"input": "hi", "conversation": "team-chat"}),
        ("responses_conversation_next", "/v1/responses", {}, {"input": "again", "conversation": "team-chat"}),
        ("responses_history", "/v1/responses", {},
         {"input": "next", "conversation_history": [{"role": "user", "content": "hello"},
                                                    {"role": "assistant", "content": REPLY}]}),
        ("responses_history_over_chain", "/v1/responses", {},
         {"input": "next", "previous_response_id": "<resp:responses_fresh>",
          "conversation_history": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": REPLY}]}),
        ("responses_input_list", "/v1/responses", {},
         {"input": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": REPLY},
                    {"role": "user", "content": "next"}]}),
        ("responses_not_stored", "/v1/responses", {}, {**hello, "store": False}),
        ("responses_chain_not_stored", "/v1/responses", {},
         {"input": "x", "previous_response_id": "<resp:responses_not_stored>"}),
        ("chat_first", "/v1/chat/completions", {}, {"model": "hermes-agent", "messages": chat}),
        ("chat_again", "/v1/chat/completions", {}, {"model": "hermes-agent", "messages": chat}),
        ("chat_resend", "/v1/chat/completions", {},
         {"model": "hermes-agent", "messages": chat + [{"role": "assistant", "content": REPLY},
                                                       {"role": "user", "content": "next"}]}),
        ("chat_stream", "/v1/chat/completions", {}, {"model": "hermes-agent", "messages": chat, "stream": True}),
        ("chat_system", "/v1/chat/completions", {},
         {"model": "hermes-agent", "messages": [{"role": "system", "content": "Be terse."}] + chat}),
        ("chat_session_header", "/v1/chat/completions", {"X-Hermes-Session-Id": "<sid:responses_fresh>"},
         {"model": "hermes-agent", "messages": chat}),
        ("chat_session_header_given", "/v1/chat/completions", {"X-Hermes-Session-Id": GIVEN},
         {"model": "hermes-agent", "messages": chat}),
        ("runs_fresh", "/v1/runs", {}, hello),
        ("runs_fresh_again", "/v1/runs", {}, hello),
        ("runs_chain", "/v1/runs", {}, {"input": "and then?", "previous_response_id": "<resp:responses_fresh>"}),
        ("runs_session_header", "/v1/runs", {"X-Hermes-Session-Id": "<sid:responses_fresh>"}, hello),
        ("runs_body_session", "/v1/runs", {}, {**hello, "session_id": GIVEN}),
    ]


def shape(sid, given):
    if sid in given:
        return "given"
    if re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", sid):
        return "uuid4"
    if re.fullmatch(r"api-[0-9a-f]{16}", sid):
        return "derived"
    if re.fullmatch(r"run_[0-9a-f]+", sid):
        return "run_id"
    return "other"


async def record(port):
    import aiohttp

    resp_ids, sids, first_of, out = {}, {}, {}, []
    base = f"http://127.0.0.1:{port}"

    def fill(v):
        if isinstance(v, str):
            v = re.sub(r"<resp:(\w+)>", lambda m: resp_ids[m.group(1)], v)
            return re.sub(r"<sid:(\w+)>", lambda m: sids[m.group(1)], v)
        if isinstance(v, dict):
            return {k: fill(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fill(x) for x in v]
        return v

    async with aiohttp.ClientSession() as http:
        for name, path, headers, body in steps():
            before = len(SESSIONS)
            async with http.post(base + path, json=fill(body), headers={**AUTH, **fill(headers)}) as r:
                status, text = r.status, await r.text()
            if path == "/v1/runs" and status == 202:
                for _ in range(50):
                    if len(SESSIONS) > before:
                        break
                    await asyncio.sleep(0.05)
            entry = {"name": name, "path": path, "headers": headers, "body": body, "status": status}
            if len(SESSIONS) > before:
                sid = SESSIONS[before]
                sids[name] = sid
                entry["session"] = f"same as {first_of[sid]}" if sid in first_of else "new"
                first_of.setdefault(sid, name)
                entry["shape"] = shape(sid, {GIVEN})
            if path == "/v1/responses" and status == 200:
                if text.startswith("{"):
                    resp_ids[name] = json.loads(text)["id"]
                else:
                    m = re.search(r'"id": ?"(resp_[0-9a-zA-Z]+)"', text)
                    resp_ids[name] = m.group(1)
            if status >= 400:
                entry["error"] = re.sub(r"resp_[0-9a-zA-Z]+", "<id:resp>", json.loads(text)["error"]["message"])
            out.append(entry)
    return out


async def main_async():
    async with upstream_api_server(KEY, ScriptedAgent) as (port, _):
        return await record(port)


def main() -> None:
    upstream_home()
    recorded = asyncio.run(main_async())
    write_golden(OUT / "cases.json", "scripts/golden/api_session_choice.py", {"givenSession": GIVEN, "steps": recorded})
    print(f"{len(recorded)} steps → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
