#!/usr/bin/env python3
"""How many jobs upstream's cron tick runs at once: `HERMES_CRON_MAX_PARALLEL`, else config.yaml's
`cron.max_parallel_jobs`, each read with Python's int() (upstream's cron.scheduler.tick, by its own code).

Ran upstream's hermes-agent fork at commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Each case: a fresh home with one due job and the case's config.yaml, the variable set (or not), one tick whose job
body is replaced (nothing runs) and whose pool factory records the max_workers upstream asked for (null: no limit).

Run: /usr/bin/python3 scripts/golden/cron_max_parallel.py
Writes test/fixtures/upstream/cron-max-parallel/golden.json; replayed by src-main/cron/claim-ttl.test.ts.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from golden_setup import upstream_home, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-max-parallel" / "golden.json"

# [HERMES_CRON_MAX_PARALLEL or None, config.yaml's cron section text or None]
CASES = [
    ["1_000", None],
    [" 12 ", None],
    ["١٢", None],
    ["+3", None],
    ["3.0", None],
    ["0", "max_parallel_jobs: 4"],
    ["x", "max_parallel_jobs: 4"],
    ["  ", "max_parallel_jobs: 4"],
    [None, "max_parallel_jobs: 2.9"],
    [None, "max_parallel_jobs: '1_0'"],
    [None, "max_parallel_jobs: ' ５ '"],
    [None, "max_parallel_jobs: '3.0'"],
    [None, "max_parallel_jobs: true"],
    [None, "max_parallel_jobs: 0"],
]


def one(env, section):
    home = upstream_home("golden-cron-par-")
    if section is not None:
        (home / "config.yaml").write_text(f"cron:\n  {section}\n", encoding="utf-8")
    if env is None:
        os.environ.pop("HERMES_CRON_MAX_PARALLEL", None)
    else:
        os.environ["HERMES_CRON_MAX_PARALLEL"] = env
    from cron import jobs, scheduler

    job = jobs.create_job(prompt="p", schedule="every 1h", name="due")
    jobs.update_job(job["id"], {"next_run_at": "2000-01-01T00:00:00+00:00"})
    asked = []
    real_pool = scheduler._get_parallel_pool

    def pool(max_workers):
        asked.append(max_workers)
        return real_pool(max_workers)

    scheduler._get_parallel_pool = pool
    scheduler.run_one_job = lambda *a, **k: True
    scheduler.tick(verbose=False)
    return asked[0] if asked else "no pool"


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "one":
        env, section = json.loads(sys.stdin.read())
        print(json.dumps(one(env, section)))
        sys.exit(0)
    cases = []
    for env, section in CASES:
        r = subprocess.run([sys.executable, __file__, "one"], input=json.dumps([env, section]), check=True,
                           capture_output=True, text=True)
        cases.append({"env": env, "section": section, "max_workers": json.loads(r.stdout.strip().splitlines()[-1])})
    write_golden(OUT, "scripts/golden/cron_max_parallel.py", {"cases": cases})
    print(json.dumps(cases, indent=1, ensure_ascii=False))
