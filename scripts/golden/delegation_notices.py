"""Golden text: the message upstream Hermes queues into a session when a background (async) delegation finishes.

Calls upstream's own formatter for async-delegation completion events (tools/process_registry.py) on fixed events:
one task completed, interrupted with partial output, failed; a batch of two (one completed, one failed) and a batch
that failed as a whole. The dispatch time is a fixed epoch and TZ is UTC, so the text is the same on every machine.

Run: /usr/bin/python3 scripts/golden/delegation_notices.py   (HERMES_UPSTREAM defaults to /work/upstream.)
Writes test/fixtures/upstream/delegation-notices/notices.json, read by
src-renderer/pages/session/delegation-notice.test.ts.
"""
import json
import os
import sys
import tempfile
import time
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "delegation-notices"
os.environ["TZ"] = "UTC"
time.tzset()
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="delegation-notices-")
sys.path.insert(0, UPSTREAM)

from tools.process_registry import format_process_notification  # noqa: E402

base = dict(type="async_delegation", delegation_id="deleg_0a1b2c3d", goal="Summarize open issues",
            context="repo: caduceus", toolsets=["web", "file"], role="leaf", model="m-1", api_calls=3,
            duration_seconds=12.5, dispatched_at=1764900000.0, completed_at=1764900012.5)
events = {
    "single_ok": dict(base, status="completed", summary="Three issues are open:\n- #1 crash\n- #2 docs"),
    "single_interrupted": dict(base, status="interrupted", error="stopped by user", summary="partial list"),
    "single_error": dict(base, status="error", error="model refused", summary=None),
    "batch": dict(base, goals=["Count to three", "Name a colour"], total_duration_seconds=30.1, results=[
        dict(task_index=0, status="completed", summary="one two three", api_calls=1, duration_seconds=0.2),
        dict(task_index=1, status="error", summary=None, error="timed out", duration_seconds=30.0),
    ]),
    "batch_error": dict(base, goals=["A", "B"], results=[], error="pool shut down"),
}
OUT.mkdir(parents=True, exist_ok=True)
out = {name: format_process_notification(evt) for name, evt in events.items()}
(OUT / "notices.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
print(f"wrote {len(out)} notices to {OUT / 'notices.json'}")
