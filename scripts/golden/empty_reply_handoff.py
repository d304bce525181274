#!/usr/bin/env python3
"""Golden: what upstream hands on when a turn ends with no reply (its empty-reply retries exhausted): the answer its
memory providers' sync receives, and what a delegating parent gets from such a child. Upstream commit
9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output): agent/conversation_loop.py ends the turn with the
"(empty)" sentinel, agent/turn_finalizer.py swaps in its turn-completion explanation (display.turn_completion_explainer,
on by default) before run_agent.py's _sync_external_memory_for_turn, and tools/delegate_tool.py's _run_single_child
marks a child "failed" only when its summary is the bare sentinel.

Each case runs upstream's real AIAgent on a scripted provider that always answers with empty content: one turn with a
recording memory manager in place of its providers, and one delegated child (_run_single_child). The explanation is
upstream's prose and is not recorded: only whether each hand-off got the turn's final answer, and whether that answer
was the bare sentinel.

Run: PYTHONPATH=/tmp/cronpylib /usr/bin/python3 scripts/golden/empty_reply_handoff.py
Writes test/fixtures/upstream/empty-reply-handoff/cases.json; read by src-main/agent/agent-control.test.ts.
"""
import json
import os
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "empty-reply-handoff" / "cases.json"
# (name, HERMES_TURN_COMPLETION_EXPLAINER or None for upstream's default)
CASES = [("explainer on (default)", None), ("explainer off", "0")]


class Blank(ScriptedProvider):
    """Empty content every time, streamed or not."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if body.get("stream"):
            self._start_stream()
            self.wfile.write(self._event({"role": "assistant", "content": ""}))
            self.wfile.write(self._event({}, "stop"))
            self.wfile.write(b"data: [DONE]\n\n")
        else:
            self._send_completion({"role": "assistant", "content": ""}, "stop",
                                  {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1})


_, URL = serve_provider(Blank)
provider_home(URL)

from run_agent import AIAgent  # noqa: E402
from tools.delegate_tool import _run_single_child  # noqa: E402


class RecordingMemory:
    """Stands in for the agent's memory manager: records sync_all, every other hook does nothing."""

    def __init__(self):
        self.synced = []

    def sync_all(self, user, answer, **_):
        self.synced.append([user, answer])

    def __getattr__(self, _name):
        return lambda *a, **k: None


def new_agent():
    return AIAgent(model="m", base_url=URL, api_key="sk-golden", provider="custom", quiet_mode=True,
                   enabled_toolsets=[], skip_memory=True)


cases = []
for name, env in CASES:
    if env is None:
        os.environ.pop("HERMES_TURN_COMPLETION_EXPLAINER", None)
    else:
        os.environ["HERMES_TURN_COMPLETION_EXPLAINER"] = env
    parent = new_agent()
    memory = RecordingMemory()
    parent._memory_manager = memory
    result = parent.run_conversation("hello there")
    final = result.get("final_response")
    child = _run_single_child(0, "do the thing", child=new_agent(), parent_agent=parent)
    cases.append({
        "name": name,
        "turn": {"completed": result.get("completed"), "finalIsSentinel": final == "(empty)", "finalEmpty": not final},
        "memorySync": [{"user": u, "answerIsFinal": a == final} for u, a in memory.synced],
        "delegate": {"status": child.get("status"), "summaryIsFinal": child.get("summary") == final,
                     "hasError": bool(child.get("error"))},
    })

write_golden(OUT, "scripts/golden/empty_reply_handoff.py", {"cases": cases})
