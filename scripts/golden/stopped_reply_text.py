#!/usr/bin/env python3
"""Golden: the text upstream keeps of a reply stopped mid-stream, by its own code.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Upstream's streamed text passes its StreamingThinkScrubber (agent/think_scrubber.py) before it is recorded as shown;
on a Stop (conversation_loop.py, the InterruptedError branch) it keeps strip_think_blocks(recorded).strip() as the
assistant row, or nothing when that is empty. Each case feeds the raw streamed text to a fresh scrubber as one delta
(no flush: the stop lands mid-stream, a held-back partial tag is never recorded) and strips the result as the stop
path does. Replayed by src-main/agent/turn-loop-stop.test.ts.
Run: /usr/bin/python3 scripts/golden/stopped_reply_text.py
Writes test/fixtures/upstream/stopped-reply-text/cases.json: [[raw streamed text, kept text], ...].
"""
from pathlib import Path

from golden_setup import upstream_home, write_golden

upstream_home()
from agent.agent_runtime_helpers import strip_think_blocks  # noqa: E402
from agent.think_scrubber import StreamingThinkScrubber  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "stopped-reply-text" / "cases.json"

RAW = [
    "first words ",
    "<think>plan it</think>first words ",
    "<think>plan it</think>\n\nfirst words ",
    "<think>still planning, cut",
    "Answer so far.\n<think>more planning",
    "Answer so far.\n  <thinking>more planning",
    "Answer so far <think>cut mid-line",
    "use <think> tags here",
    "<THINK>x</THINK>Shouting",
    "<thinking>a</thinking>B<reasoning>c</reasoning>D<thought>e</thought>E",
    "<REASONING_SCRATCHPAD>s</REASONING_SCRATCHPAD>done",
    "<think foo=1>attr, unclosed",
    "text then </think> orphan",
    "before <tool_call>{\"name\":\"x\"}</tool_call> after",
    "Hello <thi",
    "Hello <",
    "a < b and c",
    "Hello </thin",
    "<think>a</think>x<think>b</think>y",
    "<think>only reasoning</think>",
    "   \n",
    "Done.\n<function name=\"f\">{}</function>",
]


def kept(raw):
    shown = StreamingThinkScrubber().feed(raw)
    return strip_think_blocks(None, shown).strip()


write_golden(OUT, "scripts/golden/stopped_reply_text.py", {"cases": [[r, kept(r)] for r in RAW]})
