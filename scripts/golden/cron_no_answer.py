#!/usr/bin/env python3
"""What upstream's cron saves, delivers and records when the model sends nothing to show, with the turn-completion
explainer on (its default) and off (config.yaml `display.turn_completion_explainer: false`): upstream's own firing
body (cron.scheduler.run_one_job) against a local scripted OpenAI-compatible server whose every reply is blank, the
delivery step replaced by a recorder (the job delivers to `origin`, a chat, so a reply would be sent).

Ran upstream's hermes-agent fork at commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Run: PYTHONPATH=<dir with the `openai` package> /usr/bin/python3 scripts/golden/cron_no_answer.py
Writes test/fixtures/upstream/cron-no-answer/golden.json: per mode, the output file's `## Response` text, what was
handed to delivery (none: nothing sent), the job's last_status and last_error. Replayed by
src-main/cron/upstream-run-now.test.ts.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, sse_chunk, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-no-answer" / "golden.json"
MODES = {"on": "", "off": "display:\n  turn_completion_explainer: false\n"}


class Blank(ScriptedProvider):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        usage = {"prompt_tokens": 10, "completion_tokens": 0, "total_tokens": 10}
        if not body.get("stream"):
            self._send_completion({"role": "assistant", "content": ""}, "stop", usage)
            return
        self._start_stream()
        self.wfile.write(self._event({"role": "assistant"}) + self._event({}, "stop") + b"data: [DONE]\n\n")


def one(mode: str) -> dict:
    server, base_url = serve_provider(Blank)
    home = provider_home(base_url)
    os.environ["HERMES_YOLO_MODE"] = "1"
    with open(home / "config.yaml", "a", encoding="utf-8") as f:
        f.write(MODES[mode])
    from cron import jobs, scheduler

    delivered = []
    scheduler._deliver_result = lambda job, content, **_: delivered.append(content)
    job = jobs.create_job(prompt="say nothing", schedule="every 1h", name="Mute", deliver="origin",
                          origin={"platform": "telegram", "chat_id": "42"})
    scheduler.run_one_job(next(j for j in jobs.load_jobs() if j["id"] == job["id"]))
    out_dir = home / "cron" / "output" / job["id"]
    text = next(out_dir.glob("*.md")).read_text(encoding="utf-8")
    after = next(j for j in jobs.load_jobs() if j["id"] == job["id"])
    server.shutdown()
    return {
        "response": text.split("## Response\n\n", 1)[1],
        "delivered": delivered,
        "last_status": after.get("last_status"),
        "last_error": after.get("last_error"),
    }


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "one":
        print(json.dumps(one(sys.argv[2])))
        sys.exit(0)
    # each mode in its own process: upstream's modules read the home when they load
    modes = {
        m: json.loads(subprocess.run([sys.executable, __file__, "one", m], check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1])
        for m in MODES
    }
    write_golden(OUT, "scripts/golden/cron_no_answer.py", {"modes": modes})
    print(json.dumps(modes, indent=1, ensure_ascii=False))
