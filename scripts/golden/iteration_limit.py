#!/usr/bin/env python3
"""Golden: how upstream ends a turn that used its whole iteration budget (agent.max_turns): the summary call of
agent/turn_finalizer.py → agent/chat_completion_helpers.handle_max_iterations, and what state.db keeps of it.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Upstream's APIServerAdapter (golden_setup.upstream_api_server) with its real AIAgent, on a home whose config.yaml sets
agent.max_turns: 2 and points at a scripted OpenAI-compatible provider (golden_setup.serve_provider). The provider
answers every call that offers tools with a terminal `echo` call, so each turn spends its budget; the call that comes
after (the summary call) is answered by the case named in the turn's user message:
- summary: "Summary of the work.";
- think: "<think>…</think>" only (nothing left once the reasoning block is taken out);
- empty: content "" every time;
- empty_once: content "" the first time, then "Second try.";
- error: HTTP 400 (an error the client does not retry);
- fragment: "The" (a short fragment: where the turn-completion explainer acts), asked with the explainer on and off
  (HERMES_TURN_COMPLETION_EXPLAINER=0).
Recorded per case: each summary request's shape (stream flag, whether `tools` / `tool_choice` is sent, the roles of its
messages, the keys of each message, whether the last message is a user message whose text is new in the conversation),
the API server's reply, the session's rows (role, content, finish_reason, whether tool_calls is set) and its counters
(api_call_count, input/output tokens). Upstream's own
words (its summary request, its fallback replies, its explanation) are recorded by what they are, never as text:
"<summary request>", "<no summary>", "<summary error>" (with whether the error and the budget are named),
"<explanation>" (the fragment kept before it or not).

Run: PYTHONPATH=/tmp/cronpylib /usr/bin/python3 scripts/golden/iteration_limit.py
Writes test/fixtures/upstream/iteration-limit/cases.json; replayed by test/api-server-host.test.ts.
"""
import asyncio
import json
import os
import sqlite3
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, sse_chunk, upstream_api_server, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "iteration-limit" / "cases.json"
KEY = "hk_golden_key_0123456789"
CASES = ["summary", "think", "empty", "empty_once", "error", "fragment"]
ERROR_TEXT = "bad request for the summary"
MINE = {"Summary of the work.", "Second try.", "The", '{"output": "hi", "exit_code": 0, "error": null}', ""}
SUMMARY_CALLS = {}  # user message -> the bodies of its summary calls


def case_of(messages):
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), str) and m["content"].startswith("case "):
            return m["content"].split()[1], m["content"]
    return None, None


class Provider(ScriptedProvider):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        msgs = body.get("messages", [])
        case, user = case_of(msgs)
        usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
        if case is None:  # a title
            self._send_completion({"role": "assistant", "content": "a title"}, "stop", usage)
            return
        if body.get("tools"):
            call = {"index": 0, "id": f"call_{len(msgs)}", "type": "function",
                    "function": {"name": "terminal", "arguments": json.dumps({"command": "echo hi"})}}
            out = (sse_chunk("m", {"role": "assistant", "content": None, "tool_calls": [call]})
                   + sse_chunk("m", {}, "tool_calls", {"usage": {"prompt_tokens": 3, "completion_tokens": 1,
                                                                "total_tokens": 4}})
                   + b"data: [DONE]\n\n")
            self._send("text/event-stream", out)
            return
        SUMMARY_CALLS.setdefault(user, []).append(body)
        n = len(SUMMARY_CALLS[user])
        if case == "error":
            data = json.dumps({"error": {"message": ERROR_TEXT, "type": "invalid_request_error"}})
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data.encode())
            return
        text = {"summary": "Summary of the work.", "think": "<think>only reasoning here</think>", "empty": "",
                "empty_once": "" if n == 1 else "Second try.", "fragment": "The"}[case]
        if body.get("stream"):
            self._send("text/event-stream", sse_chunk("m", {"role": "assistant", "content": text})
                       + sse_chunk("m", {}, "stop") + b"data: [DONE]\n\n")
        else:
            self._send_completion({"role": "assistant", "content": text}, "stop", usage)


_server, BASE = serve_provider(Provider)
HOME = provider_home(BASE, toolsets="  api_server: [terminal]\n")
with open(HOME / "config.yaml", "a") as f:
    f.write("agent:\n  max_turns: 2\n")
os.environ["TERMINAL_CWD"] = str(HOME)
os.environ["HERMES_YOLO_MODE"] = "1"

from run_agent import AIAgent  # noqa: E402


def shape_text(text, known):
    """Upstream's own words by what they are (`known`: the case's summary request and upstream's explanation of an
    iteration-limit end); the scripted provider's and the user's text as they are."""
    if not isinstance(text, str) or text in known["mine"]:
        return text
    if text == known["request"]:
        return "<summary request>"
    if text == known["explanation"]:
        return "<explanation>"
    if text.endswith("\n\n" + known["explanation"]):
        return text[: -len(known["explanation"])] + "<explanation>"
    if known["case"] == "error":
        return {"kind": "<summary error>", "namesBudget": f"({known['max']})" in text,
                "namesError": ERROR_TEXT in text}
    return "<no summary>"


def rows_of(sid, known):
    con = sqlite3.connect(HOME / "state.db")
    rows = [[r[0], shape_text(r[1], known), r[2], bool(r[3])] for r in con.execute(
        "SELECT role, content, finish_reason, tool_calls IS NOT NULL FROM messages WHERE session_id = ? ORDER BY id",
        (sid,))]
    con.close()
    return rows


def session_of(sid):
    """The session row's counters: whether the summary call is counted (the budget's calls stream no usage; the
    summary call's reply reports 5 prompt and 2 completion tokens)."""
    con = sqlite3.connect(HOME / "state.db")
    r = con.execute("SELECT api_call_count, input_tokens, output_tokens FROM sessions WHERE id = ?", (sid,)).fetchone()
    con.close()
    return {"apiCallCount": r[0], "inputTokens": r[1], "outputTokens": r[2]}


def request_shape(body, known):
    msgs = body["messages"]
    last = msgs[-1]
    return {
        "stream": bool(body.get("stream")),
        "hasTools": "tools" in body,
        "hasToolChoice": "tool_choice" in body,
        "keys": sorted(k for k in body if k not in ("messages", "model")),
        "roles": [m["role"] for m in msgs],
        "messageKeys": [sorted(m) for m in msgs],
        "last": {"role": last["role"], "content": shape_text(last.get("content"), known)},
    }


async def record():
    import aiohttp

    auth = {"Authorization": f"Bearer {KEY}"}
    out = {}
    async with upstream_api_server(KEY) as (port, _adapter):
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            runs = [(c, None) for c in CASES] + [("fragment", "0")]
            for case, explainer in runs:
                name = case if explainer is None else f"{case}_explainer_off"
                if explainer is None:
                    os.environ.pop("HERMES_TURN_COMPLETION_EXPLAINER", None)
                else:
                    os.environ["HERMES_TURN_COMPLETION_EXPLAINER"] = explainer
                sid = f"golden-limit-{name}"
                msg = f"case {case} {name}"
                async with http.post(f"{base}/v1/chat/completions", headers={**auth, "X-Hermes-Session-Id": sid},
                                     json={"model": "hermes-agent",
                                           "messages": [{"role": "user", "content": msg}]}) as r:
                    body = await r.json()
                await asyncio.sleep(0.3)  # the title call and the session's last write
                calls = SUMMARY_CALLS.get(msg, [])
                known = {"mine": MINE | {msg}, "case": case, "max": 2,
                         "request": calls[0]["messages"][-1]["content"] if calls else None,
                         "explanation": AIAgent._format_turn_completion_explanation("max_iterations_reached(2/2)")}
                out[name] = {
                    "status": r.status,
                    "reply": shape_text(body["choices"][0]["message"]["content"], known),
                    "summaryRequests": [request_shape(b, known) for b in calls],
                    "rows": rows_of(sid, known),
                    "session": session_of(sid),
                }
    return out


write_golden(OUT, "scripts/golden/iteration_limit.py", {"maxTurns": 2, "cases": asyncio.run(record())})
print(f"wrote {OUT}")
