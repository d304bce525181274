#!/usr/bin/env python3
"""How upstream's `hermes cron list` shows a job's run limit (`repeat`), on a jobs.json its own CLI and scheduler wrote.

  /usr/bin/python3 scripts/golden/cron_repeat.py        # HERMES_UPSTREAM defaults to /work/upstream

`hermes cron create` makes three jobs: one with no limit, one with `--repeat 3`, and a one-shot (upstream gives a
one-shot `times: 1`); upstream's own `cron.jobs.mark_job_run` then records one run of the limited job, as its
scheduler does after a run. Writes test/fixtures/upstream/cron-repeat/: home/cron/jobs.json and listed.json (the
job ids, the upstream commit, and what `hermes cron list` printed for each job: its `Repeat:` line).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
DEST = ROOT / "test" / "fixtures" / "upstream" / "cron-repeat"


def created_id(out):
    return re.search(r"Created job: ([0-9a-f]+)", out).group(1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        ids = {
            "forever": created_id(hermes(home, "cron", "create", "every 2h", "check the queue", "--name", "forever").stdout),
            "three": created_id(
                hermes(home, "cron", "create", "0 9 * * 1", "weekly digest", "--name", "three", "--repeat", "3").stdout
            ),
            "once": created_id(hermes(home, "cron", "create", "2h", "remind me", "--name", "once").stdout),
        }
        # one run of the limited job, recorded by upstream's own bookkeeping (what its scheduler calls after a run)
        code = f"import sys; sys.path.insert(0, {UPSTREAM!r}); from cron import jobs; jobs.mark_job_run({ids['three']!r}, True)"
        subprocess.run(["/usr/bin/python3", "-c", code], env={**os.environ, "HERMES_HOME": str(home)}, check=True)
        out = hermes(home, "cron", "list").stdout
        repeat = {}
        for name, job_id in ids.items():
            block = out[out.index(job_id):]
            repeat[name] = re.search(r"Repeat:\s+(\S+)", block).group(1)
        if DEST.exists():
            shutil.rmtree(DEST)
        (DEST / "home" / "cron").mkdir(parents=True)
        shutil.copy(home / "cron" / "jobs.json", DEST / "home" / "cron" / "jobs.json")
        listed = {"upstream_commit": upstream_commit(), "jobs": ids, "repeat": repeat}
        (DEST / "listed.json").write_text(json.dumps(listed, indent=1, ensure_ascii=False) + "\n")
        print(json.dumps(listed))


if __name__ == "__main__":
    sys.exit(main())
