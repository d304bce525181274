#!/usr/bin/env python3
"""Golden `display.busy_input_mode` as upstream's own gateway reads it (GatewayRunner._load_busy_input_mode).

Usage: /usr/bin/python3 scripts/golden/busy_input_mode.py
Needs Debian's python3-yaml, python3-dotenv, python3-httpx and python3-requests (gateway.run imports them).
Env: HERMES_UPSTREAM (default /work/upstream) is the upstream checkout to import.
Also records the legacy `display.busy_text_mode` knob as upstream resolves it (_load_busy_text_mode): a text message
sent mid-turn queues when either says queue, unless the input mode is steer.
Writes test/fixtures/upstream/busy-input-mode/cases.json: [[config.yaml text, input mode, text mode], ...].
"""
import json
import os
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit  # noqa: E402

UPSTREAM = Path(UPSTREAM)
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "busy-input-mode"

CONFIGS = [
    "",
    "model: gpt-4o\n",
    "display:\n  busy_input_mode: queue\n",
    "display:\n  busy_input_mode: steer\n",
    "display:\n  busy_input_mode: interrupt\n",
    "display:\n  busy_input_mode: Queue   # what to do with a message sent mid-turn\n",
    "display:\n  busy_input_mode: '  STEER '\n",
    "display:\n  busy_input_mode: bogus\n",
    "display:\n  busy_input_mode: ''\n",
    "display:\n  busy_input_mode:\n",
    "display:\n  busy_input_mode: 3\n",
    "display:\n  busy_input_mode: true\n",
    "display:\n  busy_input_mode: [queue]\n",
    "display: queue\n",
    "display:\n  busy_text_mode: queue\n",
    "busy_input_mode: queue\n",
    "display:\n  busy_text_mode: interrupt\n  busy_input_mode: queue\n",
    "display:\n  busy_text_mode: queue\n  busy_input_mode: steer\n",
    "display:\n  busy_text_mode: QUEUE\n  busy_input_mode: interrupt\n",
    "display:\n  busy_text_mode: steer\n",
    "display:\n  streaming: true\n  busy_input_mode: queue\n  tool_progress: all\n",
]


def main() -> None:
    os.environ.pop("HERMES_GATEWAY_BUSY_INPUT_MODE", None)
    os.environ.pop("HERMES_GATEWAY_BUSY_TEXT_MODE", None)
    cases = []
    with tempfile.TemporaryDirectory() as home:
        os.environ["HERMES_HOME"] = home
        sys.path.insert(0, str(UPSTREAM))
        from gateway.run import GatewayRunner  # noqa: E402  (reads HERMES_HOME per call)

        for text in CONFIGS:
            Path(home, "config.yaml").write_text(text)
            cases.append([text, GatewayRunner._load_busy_input_mode(), GatewayRunner._load_busy_text_mode()])
    commit = upstream_commit()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cases.json").write_text(
        json.dumps({"upstreamCommit": commit, "cases": cases}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main()
