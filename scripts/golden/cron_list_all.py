#!/usr/bin/env python3
"""Which jobs upstream's own `hermes cron list` (and `hermes cron` alone) shows with and without `--all`, on a jobs.json its own `hermes cron
create|add|pause` wrote (a recurring job, a paused one, and a one-shot the script marks finished as upstream's
scheduler leaves one: enabled false, state completed).

  /usr/bin/python3 scripts/golden/cron_list_all.py        # HERMES_UPSTREAM defaults to /work/upstream

Then what its create, pause, resume and remove (and the `rm` alias) print, which scripts read the job id from.

And the `deliver` each step of `cron create --deliver ' telegram:123 '`, `cron edit --deliver discord` and `cron edit
--deliver ''` leaves in jobs.json.

Writes test/fixtures/upstream/cron-list-all/: home/cron/jobs.json (before the resume and removes) and listed.json
(the job ids each list printed, and each command's printed text).
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
        printed = {}
        for name, argv in (
            ("every", ["create", "every 2h", "check the inbox", "--name", "every"]),
            # recurring: a one-shot would be past (and refused on resume) once its time came after the fixture was made
            ("paused", ["add", "every 30m", "say hi", "--name", "paused"]),
            ("finished", ["add", "1h", "once only", "--name", "finished"]),
        ):
            out = hermes(home, "cron", *argv).stdout
            made[name] = re.search(r"Created job: ([0-9a-f]+)", out).group(1)
            printed.setdefault("create", out)
        printed["pause"] = hermes(home, "cron", "pause", "paused").stdout
        jobs_path = home / "cron" / "jobs.json"
        data = json.loads(jobs_path.read_text())
        for job in data["jobs"]:
            if job["id"] == made["finished"]:
                job.update(enabled=False, state="completed", next_run_at=None)
        jobs_path.write_text(json.dumps(data, indent=2))
        listed = {}
        for key, extra in (("default", ["list"]), ("all", ["list", "--all"]), ("bare", [])):
            out = hermes(home, "cron", *extra).stdout
            listed[key] = [i for i in re.findall(r"^\s+([0-9a-f]{12}) \[", out, re.M)]
        if DEST.exists():
            shutil.rmtree(DEST)
        (DEST / "home" / "cron").mkdir(parents=True)
        shutil.copy(jobs_path, DEST / "home" / "cron" / "jobs.json")
        printed["resume"] = hermes(home, "cron", "resume", made["paused"]).stdout
        printed["remove"] = hermes(home, "cron", "remove", "every").stdout
        printed["rm"] = hermes(home, "cron", "rm", made["paused"]).stdout
        delivers = []
        for argv in (
            ["create", "every 3h", "ping", "--name", "dl", "--deliver", " telegram:123 "],
            ["edit", "dl", "--deliver", "discord"],
            ["edit", "dl", "--deliver", ""],
        ):
            hermes(home, "cron", *argv)
            job = next(j for j in json.loads(jobs_path.read_text())["jobs"] if j["name"] == "dl")
            delivers.append({"argv": argv, "deliver": job.get("deliver")})
        (DEST / "listed.json").write_text(
            json.dumps(
                {"upstream_commit": upstream_commit(), "jobs": made, "listed": listed, "printed": printed, "delivers": delivers},
                indent=2,
                ensure_ascii=False,
            ) + "\n"
        )
        print(json.dumps(listed))


if __name__ == "__main__":
    main()
