#!/usr/bin/env python3
"""Which jobs upstream's own `hermes cron list` shows with and without `--all`, on a jobs.json its own `hermes cron
create|add|pause` wrote (a recurring job, a paused one, and a one-shot the script marks finished as upstream's
scheduler leaves one: enabled false, state completed).

  /usr/bin/python3 scripts/golden/cron_list_all.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/cron-list-all/: home/cron/jobs.json and listed.json (the job ids each list printed).
"""
import json
import re
import shutil
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
DEST = ROOT / "test" / "fixtures" / "upstream" / "cron-list-all"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        made = {}
        for name, argv in (
            ("every", ["create", "every 2h", "check the inbox", "--name", "every"]),
            ("paused", ["add", "30m", "say hi", "--name", "paused"]),
            ("finished", ["add", "1h", "once only", "--name", "finished"]),
        ):
            out = hermes(home, "cron", *argv).stdout
            made[name] = re.search(r"Created job: ([0-9a-f]+)", out).group(1)
        hermes(home, "cron", "pause", "paused")
        jobs_path = home / "cron" / "jobs.json"
        data = json.loads(jobs_path.read_text())
        for job in data["jobs"]:
            if job["id"] == made["finished"]:
                job.update(enabled=False, state="completed", next_run_at=None)
        jobs_path.write_text(json.dumps(data, indent=2))
        listed = {}
        for key, extra in (("default", []), ("all", ["--all"])):
            out = hermes(home, "cron", "list", *extra).stdout
            listed[key] = [i for i in re.findall(r"^\s+([0-9a-f]{12}) \[", out, re.M)]
        if DEST.exists():
            shutil.rmtree(DEST)
        (DEST / "home" / "cron").mkdir(parents=True)
        shutil.copy(jobs_path, DEST / "home" / "cron" / "jobs.json")
        (DEST / "listed.json").write_text(
            json.dumps({"upstream_commit": upstream_commit(), "jobs": made, "listed": listed}, indent=2) + "\n"
        )
        print(json.dumps(listed))


if __name__ == "__main__":
    main()
