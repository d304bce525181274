#!/usr/bin/env python3
"""Golden: the turn budget (max_iterations) upstream's chat and its gateway take from config.yaml and the environment.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

For each case a fresh HERMES_HOME gets the case's config.yaml (and .env), the process environment the case's
HERMES_MAX_ITERATIONS, and upstream's modules are imported anew (both read the home when imported). Recorded:
- `chat`: HermesCLI().max_turns (cli.py), what the interactive chat hands AIAgent as max_iterations; its loop runs
  while the call count is below it (agent/conversation_loop.py), so a float is a bound, .inf none, and a value that is
  no number fails the turn. Written as a number, "inf" / "nan", or {"type": name, "repr": repr} for any other value.
- `gateway`: gateway/run.py _current_max_iterations(), what the gateway (its API server's _create_agent) uses.
`hermes -z` (hermes_cli/oneshot.py) builds its AIAgent without max_iterations: AIAgent's default, 90, whatever the
config says; it is not a case here.

Usage: /usr/bin/python3 scripts/golden/max_turns.py   (needs Debian's python3-prompt-toolkit for cli.py)
Writes test/fixtures/upstream/max-turns/cases.json; replayed by src-main/config/config.test.ts.
"""
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from golden_setup import write_golden
from upstream_cli import UPSTREAM

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "max-turns"
MODEL = "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n"

# (name, config.yaml after the model section, process HERMES_MAX_ITERATIONS or None, .env text or None)
CASES = [
    ("absent", "", None, None),
    ("int", "agent:\n  max_turns: 12\n", None, None),
    ("float", "agent:\n  max_turns: 12.5\n", None, None),
    ("float-whole", "agent:\n  max_turns: 12.0\n", None, None),
    ("inf", "agent:\n  max_turns: .inf\n", None, None),
    ("nan", "agent:\n  max_turns: .nan\n", None, None),
    ("zero", "agent:\n  max_turns: 0\n", None, None),
    ("negative", "agent:\n  max_turns: -5\n", None, None),
    ("text-number", "agent:\n  max_turns: \"60\"\n", None, None),
    ("text-padded", "agent:\n  max_turns: \" 60 \"\n", None, None),
    ("text-word", "agent:\n  max_turns: lots\n", None, None),
    ("text-inf", "agent:\n  max_turns: \"inf\"\n", None, None),
    ("bool", "agent:\n  max_turns: true\n", None, None),
    ("false", "agent:\n  max_turns: false\n", None, None),
    ("null", "agent:\n  max_turns: ~\n", None, None),
    ("list", "agent:\n  max_turns: [3]\n", None, None),
    ("octal", "agent:\n  max_turns: 060\n", None, None),
    ("underscore", "agent:\n  max_turns: 1_000\n", None, None),
    ("huge", "agent:\n  max_turns: 100000000000000000000\n", None, None),
    ("root", "max_turns: 12\n", None, None),
    ("root-and-agent", "max_turns: 12\nagent:\n  max_turns: 7\n", None, None),
    ("agent-zero-root", "max_turns: 12\nagent:\n  max_turns: 0\n", None, None),
    ("root-inf", "max_turns: .inf\n", None, None),
    ("env", "", "33", None),
    ("env-padded", "", " 33 ", None),
    ("env-word", "", "many", None),
    ("env-inf", "", "inf", None),
    ("env-float", "", "33.5", None),
    ("env-zero", "", "0", None),
    ("env-and-agent", "agent:\n  max_turns: 12\n", "33", None),
    ("env-and-agent-inf", "agent:\n  max_turns: .inf\n", "33", None),
    ("env-and-root", "max_turns: 12\n", "33", None),
    ("dotenv", "", None, "HERMES_MAX_ITERATIONS=44\n"),
    ("dotenv-over-env", "", "33", "HERMES_MAX_ITERATIONS=44\n"),
    ("dotenv-and-agent", "agent:\n  max_turns: 7\n", None, "HERMES_MAX_ITERATIONS=44\n"),
]


def value(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return {"type": type(v).__name__, "repr": repr(v)}
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def fresh_imports():
    for mod in list(sys.modules):
        if mod in ("cli", "utils", "hermes_constants", "run_agent") or mod.split(".")[0] in (
                "hermes_cli", "gateway", "agent", "tools", "tui_gateway"):
            del sys.modules[mod]


def main() -> None:
    sys.path.insert(0, str(UPSTREAM))
    out = []
    for name, config, env, dotenv in CASES:
        with tempfile.TemporaryDirectory() as home:
            Path(home, "config.yaml").write_text(MODEL + config)
            if dotenv is not None:
                Path(home, ".env").write_text(dotenv)
            os.environ["HERMES_HOME"] = home
            os.environ.pop("HERMES_MAX_ITERATIONS", None)
            if env is not None:
                os.environ["HERMES_MAX_ITERATIONS"] = env
            fresh_imports()
            import cli
            chat = value(cli.HermesCLI().max_turns)
            os.environ.pop("HERMES_MAX_ITERATIONS", None)
            if env is not None:
                os.environ["HERMES_MAX_ITERATIONS"] = env
            fresh_imports()
            from gateway.run import _current_max_iterations
            gateway = _current_max_iterations()
            out.append({"name": name, "config": config, "env": env, "dotenv": dotenv, "chat": chat,
                        "gateway": gateway})
    write_golden(OUT / "cases.json", "scripts/golden/max_turns.py", {"modelSection": MODEL, "cases": out})
    print(f"{len(out)} cases → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
