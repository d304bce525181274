#!/usr/bin/env python3
"""Golden HTTP exchanges with upstream's real API server: what a client sees for each request.

Starts upstream's APIServerAdapter with its own connect() (gateway/platforms/api_server.py: the real aiohttp app,
middlewares and routes) on a free 127.0.0.1 port, with the bearer key and one allowed CORS origin set. Only the
agent is replaced, as upstream's tests do (tests/gateway/test_api_server*.py patch _create_agent): a scripted agent
streams a fixed reply with fixed token counts; for a user message containing "use a tool" it first reports one
`terminal` call through the callbacks the real agent fires, "please fail" returns what AIAgent returns when the
provider keeps failing, and "slow" takes a second (a run stopped while running; a request refused by the concurrency
cap, set to 1 for that pair only). Every request goes over a real socket with aiohttp's client.

Recorded per case: status; the headers that matter (content-type, Retry-After, WWW-Authenticate, Allow,
X-Hermes-Completed/-Partial, X-Hermes-Session-Key, whether X-Hermes-Session-Id is present and echoes the one sent, Access-Control-*, the
hardening headers); the body: JSON normalised (ids and timestamps replaced by placeholders, see norm()), or for SSE
the frame sequence (event name + normalised data, comments as `:`). A request body `<padded:N>` stands for a chat
request whose one user message is N "x"; `<id:resp>`/`<id:run>` in a path or body for an id an earlier case returned
(`<id:resp_kept>`: responses_tool's, never deleted; `<id:resp_instr>`: responses_instructions'; `<id:resp_streamed>`,
`<id:resp_unstored>`, `<id:resp_stream_unstored>`: the responses of the cases so named, a streamed one's id read from its
response.created event). `sameSessionAs: NAME` marks a run whose status names the session
that case's answer was recorded in.

Usage: /usr/bin/python3 scripts/golden/api_server_http.py
Needs Debian's python3-aiohttp, python3-yaml, python3-dotenv, python3-httpx and python3-requests.
Env: HERMES_UPSTREAM (default /work/upstream) is the upstream checkout to import.
Writes test/fixtures/upstream/api-server-http/cases.json: {upstreamCommit, script, key, reply, usage, cases: [...]}.
Replayed against Caduceus by test/api-server-upstream-http.test.ts.
"""
import asyncio
import json
import re
import time
from pathlib import Path

from golden_setup import upstream_api_server, upstream_home, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-server-http"
KEY = "hk_golden_key_0123456789"
REPLY_PIECES = ["Hello", " from", " the agent."]
REPLY = "".join(REPLY_PIECES)
USAGE = (11, 7, 18)
AUTH = {"Authorization": f"Bearer {KEY}"}
JSON_AUTH = {**AUTH, "Content-Type": "application/json"}
SCOPE = "agent:main:webui:dm:user-42"

# Header names recorded (lower-cased); X-Hermes-Session-Id only as present/absent (its value is an id).
KEPT_HEADERS = ["content-type", "retry-after", "www-authenticate", "allow", "x-hermes-completed", "x-hermes-partial",
                "x-hermes-session-key"]
PRESENCE_HEADERS = ["x-hermes-session-id"]
# Hardening headers, recorded with their values wherever upstream sends them.
SECURITY_HEADERS = ["content-security-policy", "permissions-policy", "referrer-policy", "strict-transport-security",
                    "x-content-type-options", "x-frame-options", "x-xss-protection"]


# What each scripted agent was given, in order (see what_agent_saw()).
SEEN = []


def as_text(content):
    return content if isinstance(content, str) else None


class ScriptedAgent:
    """Stands in for AIAgent: the same callbacks, a fixed reply, fixed token counts."""

    def __init__(self, session_id=None, stream_delta_callback=None, tool_progress_callback=None,
                 tool_start_callback=None, tool_complete_callback=None, ephemeral_system_prompt=None,
                 gateway_session_key=None, **_):
        self.system = ephemeral_system_prompt
        self.memory_key = gateway_session_key
        self.session_id = session_id
        self.stream = stream_delta_callback
        self.progress = tool_progress_callback
        self.tool_start = tool_start_callback
        self.tool_complete = tool_complete_callback
        self.session_prompt_tokens, self.session_completion_tokens, self.session_total_tokens = USAGE

    def interrupt(self, *_a, **_k):
        pass

    def run_conversation(self, user_message, conversation_history=None, task_id=None):
        SEEN.append({
            "system": self.system or None,
            "history": [[m.get("role"), as_text(m.get("content"))] for m in conversation_history or []
                        if as_text(m.get("content"))],
            "user": as_text(user_message),
            **({"memoryKey": self.memory_key} if self.memory_key else {}),
        })
        text = user_message if isinstance(user_message, str) else json.dumps(user_message)
        if "slow" in text:
            time.sleep(1.0)
        if "please fail" in text:
            # what AIAgent returns when the provider keeps failing: no reply, failed, the error
            return {"final_response": "", "failed": True, "completed": False, "error": "provider exploded",
                    "messages": list(conversation_history or []) + [{"role": "user", "content": user_message}]}
        messages = list(conversation_history or []) + [{"role": "user", "content": user_message}]
        if "use a tool" in text:
            args = {"command": "echo hi"}
            if self.progress:
                self.progress("tool.started", "terminal", "echo hi", args)
            if self.tool_start:
                self.tool_start("call_1", "terminal", args)
            if self.tool_complete:
                self.tool_complete("call_1", "terminal", args, "hi")
            if self.progress:
                self.progress("tool.completed", "terminal", None, None, duration=0.01, is_error=False)
            messages += [
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": json.dumps(args)}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
            ]
        if self.stream:
            for piece in REPLY_PIECES:
                self.stream(piece)
        messages.append({"role": "assistant", "content": REPLY})
        return {"final_response": REPLY, "messages": messages, "completed": True}


ID_PATTERNS = [
    (re.compile(r"^chatcmpl-[0-9a-zA-Z]+$"), "<id:chatcmpl>"),
    (re.compile(r"^resp_[0-9a-zA-Z]+$"), "<id:resp>"),
    (re.compile(r"^msg_[0-9a-zA-Z]+$"), "<id:msg>"),
    (re.compile(r"^run_[0-9a-zA-Z]+$"), "<id:run>"),
    (re.compile(r"^fc_[0-9a-zA-Z]+$"), "<id:fc>"),
    (re.compile(r"^fco_[0-9a-zA-Z]+$"), "<id:fco>"),
]
TIME_KEYS = {"created", "created_at", "updated_at", "timestamp", "completed_at", "started_at", "duration"}
# Measurements of the recording machine (/health/detailed's disk probe, its pid)
VOLATILE_KEYS = {"free_bytes", "used_percent", "pid"}


def norm(value, key=None):
    """Ids → <id:prefix>, timestamps → <time>; everything else verbatim."""
    if isinstance(value, dict):
        return {k: norm(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [norm(v, key) for v in value]
    if key in TIME_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "<time>"
    if key in TIME_KEYS and isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}T", value):
        return "<time>"  # /health/detailed's ISO stamps (a surface Caduceus does not serve)
    if key in VOLATILE_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "<measured>"
    if key == "session_id" and isinstance(value, str) and re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", value):
        return "<id:session>"
    if isinstance(value, str):
        for pat, ph in ID_PATTERNS:
            if pat.match(value):
                return ph
        value = re.sub(r"(resp|run|chatcmpl)[_-][0-9a-f]{12,}", lambda m: f"<id:{m.group(1)}>", value)
    return value


def parse_sse(text, keep_ids=False):
    """Frames in order: {"event"?, "data"} with JSON data parsed (normalised unless keep_ids); comments as {"comment": text}."""
    frames = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        if not block.strip():
            continue
        frame, data = {}, []
        for line in block.split("\n"):
            if line.startswith(":"):
                frames.append({"comment": line[1:].strip()})
            elif line.startswith("event:"):
                frame["event"] = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        if data:
            raw = "\n".join(data)
            try:
                frame["data"] = json.loads(raw) if keep_ids else norm(json.loads(raw))
            except ValueError:
                frame["data"] = raw
            frames.append(frame)
    return frames


def cases():
    """(name, method, path, headers, body) — body: dict/list → JSON, str → raw bytes, None → no body.

    "<id:resp>" / "<id:run>" in a path or body stand for the id the earlier responses_create / runs_create returned.
    """
    def said(text):
        return {"model": "hermes-agent", "messages": [{"role": "user", "content": text}]}

    hello = said("hello")
    return [
        ("health", "GET", "/health", {}, None),
        ("v1_health", "GET", "/v1/health", {}, None),
        ("models", "GET", "/v1/models", AUTH, None),
        ("capabilities", "GET", "/v1/capabilities", AUTH, None),
        ("health_detailed", "GET", "/health/detailed", AUTH, None),
        ("skills", "GET", "/v1/skills", AUTH, None),
        ("toolsets", "GET", "/v1/toolsets", AUTH, None),
        ("sessions_list", "GET", "/api/sessions", AUTH, None),
        ("jobs_list", "GET", "/api/jobs", AUTH, None),
        ("models_no_key", "GET", "/v1/models", {}, None),
        ("models_wrong_key", "GET", "/v1/models", {"Authorization": "Bearer wrong"}, None),
        ("models_not_bearer", "GET", "/v1/models", {"Authorization": KEY}, None),
        ("chat_no_key", "POST", "/v1/chat/completions", {"Content-Type": "application/json"}, hello),
        ("chat", "POST", "/v1/chat/completions", JSON_AUTH, hello),
        ("chat_system_and_history", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "second"}]}),
        ("chat_two_system_messages", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "system", "content": "Rule one."}, {"role": "system", "content": "Rule two."},
            {"role": "user", "content": "two rules given"}]}),
        ("chat_system_parts", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Parted"}, {"type": "text", "text": "system."}]},
            {"role": "user", "content": "system sent as parts"}]}),
        ("chat_developer_message", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "developer", "content": "Developer note."}, {"role": "user", "content": "a developer spoke"}]}),
        ("chat_model_echo", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "some-other-model", "messages": [{"role": "user", "content": "which model?"}]}),
        ("chat_no_model", "POST", "/v1/chat/completions", JSON_AUTH,
         {"messages": [{"role": "user", "content": "no model named"}]}),
        ("chat_stream", "POST", "/v1/chat/completions", JSON_AUTH, {**said("stream this"), "stream": True}),
        ("chat_stream_usage", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("stream with usage"), "stream": True, "stream_options": {"include_usage": True}}),
        ("chat_stream_tool", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "hermes-agent", "stream": True, "messages": [{"role": "user", "content": "please use a tool"}]}),
        ("chat_tool", "POST", "/v1/chat/completions", JSON_AUTH, said("use a tool, no stream")),
        ("chat_agent_failed", "POST", "/v1/chat/completions", JSON_AUTH, said("please fail")),
        ("chat_stream_agent_failed", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("please fail in a stream"), "stream": True}),
        ("chat_idempotent_first", "POST", "/v1/chat/completions", {**JSON_AUTH, "Idempotency-Key": "golden-key-1"},
         said("only once please")),
        ("chat_idempotent_repeat", "POST", "/v1/chat/completions", {**JSON_AUTH, "Idempotency-Key": "golden-key-1"},
         said("only once please")),
        ("chat_idempotent_other_body", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "Idempotency-Key": "golden-key-1"}, said("same key, another request")),
        ("chat_malformed_json", "POST", "/v1/chat/completions", JSON_AUTH, "{not json"),
        ("chat_empty_body", "POST", "/v1/chat/completions", JSON_AUTH, ""),
        ("chat_body_5mb", "POST", "/v1/chat/completions", JSON_AUTH, "<padded:5000000>"),
        ("chat_body_11mb", "POST", "/v1/chat/completions", JSON_AUTH, "<padded:11000000>"),
        ("chat_body_array", "POST", "/v1/chat/completions", JSON_AUTH, [1, 2]),
        ("chat_missing_messages", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent"}),
        ("chat_empty_messages", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": []}),
        ("chat_messages_not_list", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "hermes-agent", "messages": "hello"}),
        ("chat_content_int", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "hermes-agent", "messages": [{"role": "user", "content": 42}]}),
        ("chat_stream_string_true", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("stream given as a string"), "stream": "true"}),
        ("chat_stream_string_false", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("no stream given as a string"), "stream": "false"}),
        ("chat_file_part", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "read this"},
                                         {"type": "file", "file": {"file_id": "file-1"}}]}]}),
        ("chat_image_bad_scheme", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "ftp://example.com/a.png"}}]}]}),
        ("chat_role_function", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "function", "name": "f", "content": "42"},
            {"role": "user", "content": "after a function message"}]}),
        ("chat_tool_history_without_content", "POST", "/v1/chat/completions", JSON_AUTH, {
            "model": "hermes-agent", "messages": [
                {"role": "user", "content": "what time is it?"},
                {"role": "assistant", "tool_calls": [{"id": "call_9", "type": "function",
                                                      "function": {"name": "clock", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_9", "content": "noon"},
                {"role": "assistant", "content": "It is noon."},
                {"role": "user", "content": "thanks, and tomorrow?"}]}),
        ("responses_input_item_without_content", "POST", "/v1/responses", JSON_AUTH, {
            "model": "hermes-agent", "input": [{"role": "assistant"}, {"role": "user", "content": "after an empty item"}]}),
        ("responses_input_string_items", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": ["an earlier line", "the question as a bare string"]}),
        ("responses_input_item_without_role", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": [{"content": "an item with no role"}]}),
        ("responses_input_with_tool_items", "POST", "/v1/responses", JSON_AUTH, {"model": "hermes-agent", "input": [
            {"role": "user", "content": "look it up"},
            {"type": "function_call", "call_id": "call_7", "name": "lookup", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_7", "output": "found"},
            {"role": "user", "content": "and what did it find?"}]}),
        ("chat_message_not_object", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "hermes-agent", "messages": ["hello"]}),
        ("chat_last_not_user", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "hermes-agent", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}),
        ("chat_empty_user", "POST", "/v1/chat/completions", JSON_AUTH,
         {"model": "hermes-agent", "messages": [{"role": "user", "content": "   "}]}),
        ("chat_session_header_new", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Id": "golden-session-1"}, said("new session by header")),
        ("chat_session_header_continue", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Id": "golden-session-1"}, said("same session, next turn")),
        ("chat_session_header_invalid", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Id": "../etc/passwd"}, hello),
        ("chat_session_header_too_long", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Id": "a" * 300}, hello),
        ("chat_session_header_200_chars", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Id": "b" * 200}, said("a long session id")),
        ("chat_session_header_space", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Id": "my session"}, hello),
        # What upstream takes as a session id: anything without "..", "/", "\\", a drive prefix or CR/LF/NUL,
        # stripped, up to 256 code points, the header's bytes read as UTF-8
        *[(f"chat_session_header_{tag}", "POST", "/v1/chat/completions",
           {**JSON_AUTH, "X-Hermes-Session-Id": sid}, said(f"session id {tag}"))
          for tag, sid in [("drive", "a:b"), ("drive_only", "C:"), ("colon", "ab:c"), ("digit_colon", "1:x"),
                           ("dots", "a..b"), ("dot", "."), ("tilde", "~user"), ("punct", "$(id);<b>\"q\",#?*"),
                           ("tab", "a\tb"), ("utf8", "café 東京"), ("emoji", "🚀" * 200),
                           ("letter_drive", "é:x"), ("too_long_utf8", "é" * 257), ("padded", "  padded-id  ")]],
        # SillyTavern's "Continue": the conversation ends with the assistant's unfinished reply (sent as is, or
        # followed by its continue nudge as a system message); then the next turn resends the continued reply
        ("chat_continue", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "system", "content": "You are Seraphina."}, {"role": "user", "content": "tell me a story"},
            {"role": "assistant", "content": "Once upon a time"}]}),
        ("chat_continue_next", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "system", "content": "You are Seraphina."}, {"role": "user", "content": "tell me a story"},
            {"role": "assistant", "content": "Once upon a time Hello from the agent."},
            {"role": "user", "content": "and then?"}]}),
        ("chat_continue_nudge", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": "system", "content": "You are Seraphina."}, {"role": "user", "content": "tell me a story"},
            {"role": "assistant", "content": "Once upon a time"},
            {"role": "system", "content": "[Continue your last message without repeating its original content.]"}]}),
        # fields in another shape than OpenAI's, which upstream ignores
        ("chat_role_null", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            {"role": None, "content": "a message without a role"}, {"role": "user", "content": "after a null role"}]}),
        ("chat_stream_options_text", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("stream options as text"), "stream": True, "stream_options": "yes"}),
        ("chat_long_system", "POST", "/v1/chat/completions", JSON_AUTH, {"model": "hermes-agent", "messages": [
            *[{"role": "system", "content": f"card part {i} " + "c" * 9000} for i in range(8)],
            {"role": "user", "content": "a character card's worth of system text"}]}),
        ("chat_get", "GET", "/v1/chat/completions", AUTH, None),
        ("unknown_route", "GET", "/v1/nope", AUTH, None),
        ("unknown_route_no_key", "GET", "/v1/nope", {}, None),
        ("options_preflight", "OPTIONS", "/v1/chat/completions",
         {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type"}, None),
        ("options_no_origin", "OPTIONS", "/v1/chat/completions", {"Access-Control-Request-Method": "POST"}, None),
        ("options_preflight_bad_origin", "OPTIONS", "/v1/chat/completions",
         {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}, None),
        ("models_allowed_origin", "GET", "/v1/models", {**AUTH, "Origin": "http://localhost:3000"}, None),
        ("models_bad_origin", "GET", "/v1/models", {**AUTH, "Origin": "http://evil.example"}, None),
        ("models_wrong_key_allowed_origin", "GET", "/v1/models",
         {"Authorization": "Bearer wrong", "Origin": "http://localhost:3000"}, None),
        ("chat_malformed_json_allowed_origin", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "Origin": "http://localhost:3000"}, "{not json"),
        ("chat_stream_allowed_origin", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "Origin": "http://localhost:3000"}, {**said("stream to a browser"), "stream": True}),
        ("responses_create", "POST", "/v1/responses", JSON_AUTH, {"model": "hermes-agent", "input": "respond"}),
        ("responses_chain", "POST", "/v1/responses", JSON_AUTH,
                   {"model": "hermes-agent", "input": "and again", "previous_response_id": "<id:resp>"}),
        ("responses_get", "GET", "/v1/responses/<id:resp>", AUTH, None),
        ("responses_conversation_first", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "start a named conversation", "conversation": "golden-conversation"}),
        ("responses_conversation_next", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "continue it by name", "conversation": "golden-conversation"}),
        ("responses_conversation_and_previous", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "both", "conversation": "golden-conversation",
          "previous_response_id": "<id:resp>"}),
        ("responses_history_not_list", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "x", "conversation_history": "nope"}),
        ("responses_history_entry_invalid", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "x", "conversation_history": [{"role": "user"}]}),
        ("responses_history", "POST", "/v1/responses", JSON_AUTH, {
            "model": "hermes-agent", "input": "now, with the history given",
            "previous_response_id": "resp_doesnotexist",
            "conversation_history": [{"role": "user", "content": "an earlier question"},
                                     {"role": "assistant", "content": "an earlier answer"}]}),
        ("responses_instructions", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "greet me", "instructions": "Answer in French."}),
        ("responses_instructions_carried", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "and again, without instructions", "previous_response_id": "<id:resp_instr>"}),
        ("responses_stream", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "respond in a stream", "stream": True}),
        ("responses_tool", "POST", "/v1/responses", JSON_AUTH, {"model": "hermes-agent", "input": "use a tool here"}),
        # a client answering the listed call by its call_id, chained, with no new message
        ("responses_call_output", "POST", "/v1/responses", JSON_AUTH, {
            "model": "hermes-agent", "previous_response_id": "<id:resp_kept>",
            "input": [{"type": "function_call_output", "call_id": "call_1", "output": "ran it"}]}),
        ("responses_stream_tool", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "use a tool in a stream", "stream": True}),
        ("responses_agent_failed", "POST", "/v1/responses", JSON_AUTH, {"model": "hermes-agent", "input": "please fail"}),
        ("responses_stream_agent_failed", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "please fail in a stream", "stream": True}),
        ("responses_store_false", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "do not keep this", "store": False}),
        ("responses_missing_input", "POST", "/v1/responses", JSON_AUTH, {"model": "hermes-agent"}),
        ("responses_input_int", "POST", "/v1/responses", JSON_AUTH, {"model": "hermes-agent", "input": 5}),
        ("responses_unknown_previous", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "x", "previous_response_id": "resp_doesnotexist"}),
        ("responses_get_unknown", "GET", "/v1/responses/resp_doesnotexist", AUTH, None),
        ("responses_delete", "DELETE", "/v1/responses/<id:resp>", AUTH, None),
        ("responses_get_deleted", "GET", "/v1/responses/<id:resp>", AUTH, None),
        ("responses_delete_unknown", "DELETE", "/v1/responses/resp_doesnotexist", AUTH, None),
        ("runs_create", "POST", "/v1/runs", JSON_AUTH, {"input": "run this"}),
        ("runs_missing_input", "POST", "/v1/runs", JSON_AUTH, {}),
        ("runs_history_not_list", "POST", "/v1/runs", JSON_AUTH, {"input": "x", "conversation_history": {"a": 1}}),
        ("runs_history_entry_invalid", "POST", "/v1/runs", JSON_AUTH,
         {"input": "x", "conversation_history": ["not an object"]}),
        ("runs_events", "GET", "/v1/runs/<id:run>/events", AUTH, None),
        ("runs_status", "GET", "/v1/runs/<id:run>", AUTH, None),
        ("runs_stop_finished", "POST", "/v1/runs/<id:run>/stop", AUTH, None),
        ("runs_create_tool", "POST", "/v1/runs", JSON_AUTH, {"input": "run this and use a tool"}),
        ("runs_tool_events", "GET", "/v1/runs/<id:run>/events", AUTH, None),
        ("runs_create_slow", "POST", "/v1/runs", JSON_AUTH, {"input": "a slow run"}),
        ("runs_stop_running", "POST", "/v1/runs/<id:run>/stop", AUTH, None),
        ("runs_stopped_status", "GET", "/v1/runs/<id:run>", AUTH, None),
        ("runs_stopped_events", "GET", "/v1/runs/<id:run>/events", AUTH, None),
        ("runs_events_unknown", "GET", "/v1/runs/run_doesnotexist/events", AUTH, None),
        ("runs_approval_unknown", "POST", "/v1/runs/run_doesnotexist/approval", JSON_AUTH, {"choice": "once"}),
        ("runs_create_chained", "POST", "/v1/runs", JSON_AUTH,
         {"input": "go on from that response", "previous_response_id": "<id:resp_kept>"}),
        ("runs_chained_status", "GET", "/v1/runs/<id:run>", AUTH, None),
        ("runs_status_unknown", "GET", "/v1/runs/run_doesnotexist", AUTH, None),
        ("runs_stop_unknown", "POST", "/v1/runs/run_doesnotexist/stop", AUTH, None),
        # X-Hermes-Session-Key: the caller's long-term memory scope, handed to the agent and echoed
        ("chat_session_key", "POST", "/v1/chat/completions", {**JSON_AUTH, "X-Hermes-Session-Key": SCOPE},
         said("remember me by my key")),
        ("chat_stream_session_key", "POST", "/v1/chat/completions", {**JSON_AUTH, "X-Hermes-Session-Key": SCOPE},
         {**said("stream, with my key"), "stream": True}),
        ("chat_session_key_blank", "POST", "/v1/chat/completions", {**JSON_AUTH, "X-Hermes-Session-Key": "   "},
         said("a blank key")),
        ("chat_session_key_too_long", "POST", "/v1/chat/completions",
         {**JSON_AUTH, "X-Hermes-Session-Key": "k" * 257}, said("a key too long")),
        ("responses_session_key", "POST", "/v1/responses", {**JSON_AUTH, "X-Hermes-Session-Key": SCOPE},
         {"model": "hermes-agent", "input": "a response, with my key"}),
        ("responses_stream_session_key", "POST", "/v1/responses", {**JSON_AUTH, "X-Hermes-Session-Key": SCOPE},
         {"model": "hermes-agent", "input": "a streamed response, with my key", "stream": True}),
        ("responses_session_key_too_long", "POST", "/v1/responses", {**JSON_AUTH, "X-Hermes-Session-Key": "k" * 257},
         {"model": "hermes-agent", "input": "x"}),
        ("runs_create_session_key", "POST", "/v1/runs", {**JSON_AUTH, "X-Hermes-Session-Key": SCOPE}, {"input": "a run, with my key"}),
        # What SDK clients add to a request: sampling settings, n, their own function tools, a response format.
        ("chat_stream_tool_usage", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("stream, use a tool, count it"), "stream": True, "stream_options": {"include_usage": True}}),
        ("chat_stream_usage_false", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("stream without usage"), "stream": True, "stream_options": {"include_usage": False}}),
        ("chat_sampling_params", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("with sampling settings"), "temperature": 0.2, "top_p": 0.9, "max_tokens": 5,
          "max_completion_tokens": 5, "presence_penalty": 0.1, "frequency_penalty": 0.1, "seed": 7, "stop": ["\n"],
          "user": "user-1", "logprobs": False, "parallel_tool_calls": True}),
        ("chat_n_2", "POST", "/v1/chat/completions", JSON_AUTH, {**said("two choices please"), "n": 2}),
        ("chat_client_tools", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("with the client's own tools"), "tool_choice": "auto", "tools": [{"type": "function", "function": {
             "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]}),
        ("chat_response_format", "POST", "/v1/chat/completions", JSON_AUTH,
         {**said("answer as json"), "response_format": {"type": "json_object"}}),
        ("responses_sampling_params", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "a response with settings", "temperature": 0.2, "top_p": 0.9,
          "max_output_tokens": 16, "metadata": {"k": "v"}, "parallel_tool_calls": False, "truncation": "auto",
          "text": {"format": {"type": "text"}}, "user": "user-1"}),
        ("responses_client_tools", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "a response, with the client's own tools", "tool_choice": "auto",
          "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}]}),
        # A streamed response, then read back; a store:false one read back.
        ("responses_stream_kept", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "stream this one and keep it", "stream": True, "instructions": "Be brief."}),
        ("responses_get_streamed", "GET", "/v1/responses/<id:resp_streamed>", AUTH, None),
        ("responses_chain_streamed", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "after the streamed one", "previous_response_id": "<id:resp_streamed>"}),
        ("responses_unstored", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "keep nothing of this", "store": False}),
        ("responses_get_unstored", "GET", "/v1/responses/<id:resp_unstored>", AUTH, None),
        ("responses_delete_unstored", "DELETE", "/v1/responses/<id:resp_unstored>", AUTH, None),
        ("responses_stream_unstored", "POST", "/v1/responses", JSON_AUTH,
         {"model": "hermes-agent", "input": "stream, keep nothing", "stream": True, "store": False}),
        ("responses_get_stream_unstored", "GET", "/v1/responses/<id:resp_stream_unstored>", AUTH, None),
        ("models_retrieve", "GET", "/v1/models/hermes-agent", AUTH, None),
    ]


# Cases whose X-Hermes-Session-Id is checked against an earlier case's (chaining by previous_response_id or by name)
SAME_SESSION_HEADER = {"responses_chain": "responses_create", "responses_conversation_next": "responses_conversation_first",
                       "chat_continue_next": "chat_continue"}


async def exchange(http, base, state, name, method, path, headers, body):
    """Send one case and return what the client saw."""
    def fill(text):
        return (text.replace("<id:resp_kept>", state.get("resp_kept", "")).replace("<id:resp>", state.get("resp", ""))
                .replace("<id:resp_instr>", state.get("resp_instr", ""))
                .replace("<id:resp_streamed>", state.get("resp_streamed", ""))
                .replace("<id:resp_unstored>", state.get("resp_unstored", ""))
                .replace("<id:resp_stream_unstored>", state.get("resp_stream_unstored", ""))
                .replace("<id:run>", state.get("run", "")))

    kwargs = {"headers": headers}
    padded = re.fullmatch(r"<padded:(\d+)>", body) if isinstance(body, str) else None
    if padded:
        # a chat request whose one user message is N "x" (kept out of the fixture as this marker)
        message = {"role": "user", "content": "x" * int(padded.group(1))}
        kwargs["data"] = json.dumps({"model": "hermes-agent", "messages": [message]}).encode()
    elif isinstance(body, str):
        kwargs["data"] = body.encode()
    elif body is not None:
        kwargs["data"] = fill(json.dumps(body)).encode()
    async with http.request(method, base + fill(path), **kwargs) as resp:
        text = await resp.text()
        h = {k.lower(): v for k, v in resp.headers.items()}
    entry = {
        "name": name,
        "request": {"method": method, "path": path, "headers": headers, "body": body},
        "status": resp.status,
        "headers": {k: h[k] for k in KEPT_HEADERS if k in h},
        "present": {k: k in h for k in PRESENCE_HEADERS},
        "sessionEchoed": "X-Hermes-Session-Id" in headers
        and h.get("x-hermes-session-id") == headers["X-Hermes-Session-Id"],
        "cors": {k: v for k, v in sorted(h.items()) if k.startswith("access-control-")},
        "security": {k: h[k] for k in SECURITY_HEADERS if k in h},
    }
    if "text/event-stream" in h.get("content-type", ""):
        entry["sse"] = parse_sse(text)
    else:
        try:
            entry["json"] = norm(json.loads(text))
        except ValueError:
            entry["text"] = text
    state.setdefault("sessions", {})[name] = h.get("x-hermes-session-id")
    return entry, text


async def record(port, adapter):
    import aiohttp

    state = {}
    out = []
    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        for case in cases():
            seen_before = len(SEEN)
            entry, text = await exchange(http, base, state, *case)
            if entry["name"] == "responses_create":
                state["resp"] = json.loads(text)["id"]
            if entry["name"] == "responses_instructions":
                state["resp_instr"] = json.loads(text)["id"]
            if entry["name"] == "responses_tool":
                state["resp_kept"] = json.loads(text)["id"]
            if entry["name"] == "responses_unstored":
                state["resp_unstored"] = json.loads(text)["id"]
            if entry["name"] in ("responses_stream_kept", "responses_stream_unstored"):
                created = next(f for f in parse_sse(text, keep_ids=True) if f.get("event") == "response.created")
                state["resp_streamed" if entry["name"] == "responses_stream_kept" else "resp_stream_unstored"] = (
                    created["data"]["response"]["id"])
            if entry["name"] in SAME_SESSION_HEADER:
                earlier = SAME_SESSION_HEADER[entry["name"]]
                same = state["sessions"][entry["name"]] == state["sessions"].get(earlier)
                entry["sameSessionHeaderAs"] = earlier if same else None
            if entry["name"] == "runs_chained_status":
                sid = json.loads(text).get("session_id")
                entry["sameSessionAs"] = "responses_tool" if sid == state["sessions"].get("responses_tool") else None
            if entry["name"].startswith("runs_create"):
                state["run"] = json.loads(text)["run_id"]
                # a scripted run finishes at once (a slow one sleeps 1 s: stopped while it runs); wait for it
                await asyncio.sleep(0.3 if entry["name"] == "runs_create_slow" else 0.5)
            if entry["name"] == "runs_stop_running":
                await asyncio.sleep(1.2)
            # What upstream handed its agent for this request: the text turns of the history, the user message, the
            # caller's system text (upstream's ephemeral prompt).
            padded = isinstance(case[4], str) and case[4].startswith("<padded:")
            if len(SEEN) > seen_before and not padded:
                entry["agent"] = SEEN[-1]
            out.append(entry)

        # The concurrency cap (gateway.api_server.max_concurrent_runs) at 1: a request while a slow turn holds the
        # only slot. Both are recorded, marked "capped" (the replay runs them on a server with that cap).
        adapter._max_concurrent_runs = 1
        slow = asyncio.ensure_future(exchange(
            http, base, state, "capped_slow", "POST", "/v1/chat/completions", JSON_AUTH,
            {"model": "hermes-agent", "messages": [{"role": "user", "content": "a slow turn"}]}))
        await asyncio.sleep(0.3)
        refused, _ = await exchange(
            http, base, state, "capped_refused", "POST", "/v1/chat/completions", JSON_AUTH,
            {"model": "hermes-agent", "messages": [{"role": "user", "content": "while another runs"}]})
        held, _ = await slow
        adapter._max_concurrent_runs = 10
        out += [{**held, "capped": True}, {**refused, "capped": True}]
    return out


async def main_async():
    # upstream's own tests assert the 401s this server answers under the aiohttp it pins (golden_setup.py)
    async with upstream_api_server(KEY, ScriptedAgent, cors_origins=["http://localhost:3000"]) as (port, adapter):
        return await record(port, adapter)


def main() -> None:
    upstream_home()
    recorded = asyncio.run(main_async())
    write_golden(OUT / "cases.json", "scripts/golden/api_server_http.py", {
        "key": KEY,
        "reply": REPLY,
        "usage": {"prompt_tokens": USAGE[0], "completion_tokens": USAGE[1], "total_tokens": USAGE[2]},
        "cases": recorded,
    })
    print(f"{len(recorded)} cases → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
