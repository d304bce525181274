#!/usr/bin/env python3
"""Upstream's own manual run of a cron job (`hermes cron run`, the cronjob tool's run action), for Caduceus's Run now.

Usage: /usr/bin/python3 scripts/golden/cron_run_now.py          (HERMES_UPSTREAM, default /work/upstream)
         writes test/fixtures/upstream/cron-run-now/cases.json: one jobs.json of cases (recurring, one-shots due and
         not, a paused job, fresh and stale fire claims, a one-shot whose runs are used up or that another scheduler
         runs) and, for each job run by hand in turn at a frozen clock (claim at `now`, the run ending `ran_at`):
         what tools.cronjob_tools._execute_job_now answered, the job's record while its run was in flight, and the
         file once all had run. Only the agent turn itself (cron.scheduler.run_job) is replaced, by one that answers
         "done"; the claim, the counting, the bookkeeping and the removal are upstream's.
       /usr/bin/python3 scripts/golden/cron_run_now.py due HOME
         upstream's due scan (cron.jobs.get_due_jobs, under its lock, claims included) on HOME: {"due": [ids]}
       /usr/bin/python3 scripts/golden/cron_run_now.py load HOME
         cron.jobs.load_jobs on HOME and, per job, compute_next_run(schedule, last_run_at): {"jobs": [...], "next": {}}
       /usr/bin/python3 scripts/golden/cron_run_now.py due+load HOME   (or load+due)
         both, one after the other in the order named, in one process: one JSON object with the keys of each
"""
import json
import os
import sys
from datetime import datetime, timedelta
from pathlib import Path

from golden_setup import freeze_cron_clock as freeze, temp_dir
from upstream_cli import UPSTREAM

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-run-now"
sys.path.insert(0, UPSTREAM)


def live(modes, home):
    os.environ["HERMES_HOME"] = home
    from cron import jobs

    out = {}
    for mode in modes:
        with jobs.use_cron_store(home):
            if mode == "due":
                out["due"] = [j["id"] for j in jobs.get_due_jobs()]
            else:
                loaded = jobs.load_jobs()
                out["jobs"] = loaded
                out["next"] = {j["id"]: jobs.compute_next_run(j["schedule"], j.get("last_run_at")) for j in loaded}
    print(json.dumps(out))


if len(sys.argv) == 3 and sys.argv[1] in ("due", "load", "due+load", "load+due"):
    live(sys.argv[1].split("+"), sys.argv[2])
    sys.exit(0)

HOME = temp_dir("golden-cron-run-now-")
os.environ["HERMES_HOME"] = str(HOME)
os.environ.pop("HERMES_TIMEZONE", None)
os.environ.pop("HERMES_MACHINE_ID", None)
ZONE = "America/New_York"
(HOME / "config.yaml").write_text(f"timezone: {ZONE}\n")
import hermes_time  # noqa: E402
from cron import jobs, scheduler  # noqa: E402
from tools import cronjob_tools  # noqa: E402

hermes_time.reset_cache()
assert str(hermes_time.get_timezone()) == ZONE


NOW = "2026-11-20T15:04:05+00:00"
RAN_AT = "2026-11-20T15:09:05+00:00"  # the run takes five minutes
now = datetime.fromisoformat(NOW)
ago = lambda s: (now - timedelta(seconds=s)).astimezone(hermes_time.get_timezone()).isoformat()  # noqa: E731

freeze((now - timedelta(hours=2)).isoformat())
made = {}
for name, schedule, repeat in [
    ("interval", "every 30m", None),  # due at `now`
    ("cron", "0 9 * * *", None),
    ("twice", "every 60m", 2),
    ("paused", "every 30m", None),
    ("fired", "every 30m", None),
    ("stale-fired", "every 30m", None),
    ("once-due", "2026-11-20T10:00", None),  # 15:00 UTC: due at `now`
]:
    made[name] = jobs.create_job(name, schedule, name=name, repeat=repeat)
freeze((now - timedelta(minutes=10)).isoformat())
for name in ["once", "used-up", "running-elsewhere"]:
    made[name] = jobs.create_job(name, "30m", name=name)  # 20 minutes ahead of `now`
jobs.pause_job(made["paused"]["id"], reason="on hold")
raw = json.loads((HOME / "cron" / "jobs.json").read_text())
for j in raw["jobs"]:
    if j["name"] == "twice":
        j["repeat"]["completed"] = 1
    if j["name"] == "fired":
        j["fire_claim"] = {"at": ago(60), "by": "other:1"}
    if j["name"] == "stale-fired":
        j["fire_claim"] = {"at": ago(400), "by": "other:1"}
    if j["name"] == "used-up":
        j["repeat"]["completed"] = 1
    if j["name"] == "running-elsewhere":
        # As another scheduler's due scan leaves a one-shot it runs now: claimed and its run counted.
        j["repeat"]["completed"] = 1
        j["run_claim"] = {"at": ago(60), "by": "other:1"}
(HOME / "cron" / "jobs.json").write_text(json.dumps(raw, indent=2))
before = json.loads((HOME / "cron" / "jobs.json").read_text())

mid = {}


def agent_turn(job, defer_agent_teardown=None):
    """Stands in for the agent turn: notes the job's record while it runs, then the run ends five minutes later."""
    mid[job["id"]] = next(j for j in jobs.load_jobs() if j["id"] == job["id"])
    freeze(RAN_AT)
    return True, "# output\n", "done", None


scheduler.run_job = agent_turn

runs = []
for name in ["interval", "cron", "once", "once-due", "twice", "paused", "fired", "stale-fired", "used-up",
             "running-elsewhere"]:
    freeze(NOW)
    job = next(j for j in jobs.load_jobs() if j["name"] == name)
    answer = cronjob_tools._execute_job_now(job)
    runs.append({"name": name, "id": job["id"], "answer": answer, "ran": job["id"] in mid,
                 "in_flight": mid.get(job["id"])})
after = json.loads((HOME / "cron" / "jobs.json").read_text())

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({
    "zone": ZONE,
    "now": NOW,
    "ran_at": RAN_AT,
    "before": before,
    "runs": runs,
    "after": after,
}, indent=2) + "\n")
(OUT / "README.md").write_text(
    "Written by `scripts/golden/cron_run_now.py` running upstream's own manual run (`tools.cronjob_tools.\n"
    "_execute_job_now`, what `hermes cron run` and the cronjob tool's run action call; the hermes-agent fork at commit\n"
    "9a75ff049b020ab5b24f76892f50f59064811028) at a frozen clock, the agent turn replaced by one answering \"done\".\n"
    "Read by `src-main/cron/upstream-run-now.test.ts`.\n"
)
print(json.dumps([{k: r[k] for k in ("name", "answer", "ran")} for r in runs], indent=1))
print("written", OUT / "cases.json")
