"""Golden text: the message upstream Hermes queues into a session when a background process it started finishes, or
when its output matches a watch pattern.

Calls upstream's own formatter for process notification events (tools/process_registry.py) on fixed events: exits
with code 0 and 1, a SIGTERM exit (143), killed by the user, lost, failed to start, and watch-pattern matches with and
without suppressed earlier matches. Nothing in them depends on the clock or the machine.

Run: /usr/bin/python3 scripts/golden/process_notices.py   (HERMES_UPSTREAM defaults to /work/upstream.)
Writes test/fixtures/upstream/process-notices/notices.json, read by
src-renderer/pages/session/process-notice.test.ts.
"""
import json
import os
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "process-notices"
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="process-notices-")
sys.path.insert(0, UPSTREAM)

from tools.process_registry import format_process_notification  # noqa: E402

base = dict(type="completion", session_id="proc_5e6f7a8b9c0d", command="npm test -- --watch=false")
events = {
    "exit_ok": dict(base, exit_code=0, output="Tests: 12 passed\nDone in 3.1s"),
    "exit_fail": dict(base, exit_code=1, output="FAIL src/a.test.ts\n  expected 2, got 3"),
    "sigterm": dict(base, exit_code=143, output=""),
    "killed": dict(base, exit_code=-15, completion_reason="killed", termination_source="user", output="partial"),
    "lost": dict(base, exit_code=None, completion_reason="lost", output=""),
    "failed_start": dict(base, exit_code=127, completion_reason="failed_start", output="sh: npm: not found"),
    "watch_match": dict(base, type="watch_match", pattern="ERROR", output="ERROR: port 3000 in use"),
    "watch_match_suppressed": dict(base, type="watch_match", pattern="ready in", output="ready in 80ms", suppressed=4),
}
OUT.mkdir(parents=True, exist_ok=True)
out = {name: format_process_notification(evt) for name, evt in events.items()}
(OUT / "notices.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
print(f"wrote {len(out)} notices to {OUT / 'notices.json'}")
