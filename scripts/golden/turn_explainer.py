#!/usr/bin/env python3
"""Golden: upstream's turn-completion explainer (display.turn_completion_explainer), by its own code.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Two things are recorded, never upstream's wording (Caduceus writes its own):
- `enabled`: whether AIAgent._turn_completion_explainer_enabled() is on for a config.yaml text and an optional
  HERMES_TURN_COMPLETION_EXPLAINER value (the variable wins over the file).
- `endings`: what agent/turn_finalizer.finalize_turn does to a turn's reply for an exit reason, with the explainer on
  and off: `kept` (the reply unchanged), `replaced` (the explanation alone) or `appended` (reply, blank line,
  explanation). The agent is a stand-in with only what finalize_turn reads; the explanation is upstream's formatter's.
Replayed by src-main/agent/turn-explainer.test.ts.
Run: /usr/bin/python3 scripts/golden/turn_explainer.py
Writes test/fixtures/upstream/turn-explainer/golden.json.
"""
import os
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import patch

from golden_setup import upstream_home, write_golden

HOME = upstream_home()
from run_agent import AIAgent  # noqa: E402
from agent.turn_finalizer import finalize_turn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "turn-explainer" / "golden.json"

CONFIGS = [
    ("", None),
    ("display:\n  turn_completion_explainer: false\n", None),
    ("display:\n  turn_completion_explainer: true\n", None),
    ("display:\n  turn_completion_explainer: 'no'\n", None),
    ("display:\n  turn_completion_explainer: ''\n", None),
    ("display:\n  turn_completion_explainer: 0\n", None),
    ("display:\n  turn_completion_explainer:\n", None),
    ("display:\n  turn_completion_explainer: off\n", None),
    ("display: false\n", None),
    ("display:\n  turn_completion_explainer: false\n", "1"),
    ("", "off"),
    ("", " No "),
    ("", "0"),
    ("", "false"),
    ("", ""),
    ("", "whatever"),
]

# [reply, exit reason, interrupted]: the ends Caduceus has (iteration limit, a reply still cut off, nothing to show
# after every retry, a Stop) and the replies they can carry.
ENDINGS = [
    ["", "max_iterations_reached(5/5)", False],
    ["(empty)", "max_iterations_reached(5/5)", False],
    ["The", "max_iterations_reached(5/5)", False],
    ["Let me check the logs", "max_iterations_reached(5/5)", False],
    ["Done.", "max_iterations_reached(5/5)", False],
    ["Checked `x`", "max_iterations_reached(5/5)", False],
    ["A much longer sentence that was cut off without", "max_iterations_reached(5/5)", False],
    ["  The  ", "max_iterations_reached(5/5)", False],
    ["(empty)", "empty_response_exhausted", False],
    ["", "empty_response_exhausted", False],
    ["Half an answer that the stream cut", "partial_stream_recovery", False],
    ["Half.", "partial_stream_recovery", False],
    ["", "interrupted_during_api_call", True],
    ["The", "interrupted_by_user", True],
    ["The", "text_response(finish_reason=stop)", False],
    ["", "text_response(finish_reason=stop)", False],
]


class StandIn:
    """Only what finalize_turn reads of an agent; the explainer's seam and formatter are upstream's own."""

    def __init__(self, explainer: bool):
        self.max_iterations = 5
        self.iteration_budget = SimpleNamespace(remaining=3, used=2, max_total=5)
        self.quiet_mode = True
        self.model = "m"
        self.provider = "custom"
        self.base_url = ""
        self.platform = "cli"
        self.session_id = "s"
        self.context_compressor = SimpleNamespace(last_prompt_tokens=0)
        for k in ("input", "output", "cache_read", "cache_write", "reasoning", "prompt", "completion", "total"):
            setattr(self, f"session_{k}_tokens", 0)
        self.session_estimated_cost_usd = 0
        self.session_cost_status = "unknown"
        self.session_cost_source = "none"
        self._tool_guardrail_halt_decision = None
        self._interrupt_message = None
        self._response_was_previewed = False
        self._skill_nudge_interval = 0
        self._iters_since_skill = 0
        self.valid_tool_names = []
        self._explainer = explainer

    def _turn_completion_explainer_enabled(self):
        return self._explainer

    _format_turn_completion_explanation = staticmethod(AIAgent._format_turn_completion_explanation)

    def _file_mutation_verifier_enabled(self):
        return False

    def _drain_pending_steer(self):
        return None

    def __getattr__(self, name):  # every other hook finalize_turn calls: a no-op
        if name.startswith("_") and not name.startswith("__") or name in ("clear_interrupt",):
            return lambda *a, **k: None
        raise AttributeError(name)


def ending(reply: str, reason: str, interrupted: bool, explainer: bool) -> str:
    with patch("hermes_cli.plugins.invoke_hook", lambda *a, **k: []):
        out = finalize_turn(
            StandIn(explainer), final_response=reply, api_call_count=2, interrupted=interrupted, failed=False,
            messages=[{"role": "user", "content": "task"}], conversation_history=[], effective_task_id="t",
            turn_id="t", user_message="task", original_user_message="task", _should_review_memory=False,
            _turn_exit_reason=reason,
        )["final_response"]
    said = AIAgent._format_turn_completion_explanation(reason)
    if out == reply:
        return "kept"
    if said and out == said:
        return "replaced"
    if said and out == reply.strip() + "\n\n" + said:
        return "appended"
    raise SystemExit(f"unexpected reply for {reason!r}: {out!r}")


def main() -> None:
    enabled = []
    for text, env in CONFIGS:
        (HOME / "config.yaml").write_text(text)
        os.environ.pop("HERMES_TURN_COMPLETION_EXPLAINER", None)
        if env is not None:
            os.environ["HERMES_TURN_COMPLETION_EXPLAINER"] = env
        enabled.append({"config": text, "env": env, "enabled": AIAgent._turn_completion_explainer_enabled(None)})
    os.environ.pop("HERMES_TURN_COMPLETION_EXPLAINER", None)
    endings = [
        {"reply": r, "reason": why, "interrupted": i, "on": ending(r, why, i, True), "off": ending(r, why, i, False)}
        for r, why, i in ENDINGS
    ]
    write_golden(OUT, "scripts/golden/turn_explainer.py", {"enabled": enabled, "endings": endings})


if __name__ == "__main__":
    main()
