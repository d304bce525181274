#!/usr/bin/env python3
"""Upstream's answers for the cron edges Caduceus must agree with: schedule strings, edits of finished jobs,
delivery with no target, and job shapes its create_job writes with every option.

Usage: /usr/bin/python3 scripts/golden/cron_edges.py        (HERMES_UPSTREAM, default /work/upstream; Debian's
         python3-croniter is enough: no expression here depends on croniter's version)
       /usr/bin/python3 scripts/golden/cron_edges.py view HOME [NOW]
         upstream's reading of HOME's cron/jobs.json: load_jobs, then get_due_jobs at NOW (default: the real clock);
         prints {"jobs": [...], "due": [ids], "after": [...]} so a jobs.json Caduceus wrote can be checked by hand
Writes test/fixtures/upstream/cron-edges/cases.json:
  schedules  each input string, per zone, at a frozen clock: the job create_job writes (schedule, next_run_at,
             repeat) or its refusal (the exception's type and message). Python's own datetime.fromisoformat decides
             which timestamps pass, so `python` records the interpreter that answered.
  edits      a finished job (a one-shot run to `state: completed`, disabled), a paused job and a job part-way
             through its repeats, each given a new schedule through upstream's two edit paths: update_job with the
             schedule text (the dashboard's PUT /api/cron/jobs/{id} and the API server's PATCH) and the cronjob
             tool's update action (what `hermes cron edit` calls): enabled, state, next_run_at, repeat afterwards
  delivery   _deliver_result for `deliver` values with no home channel and no origin (what it returns, before any
             send), and the job mark_job_run leaves after a successful run with that delivery error
  interval0  an `every 0m` job: next_run_at after a run (mark_job_run), then what get_due_jobs takes a minute later
  repeat     mark_job_run on jobs whose `repeat` is an empty object or missing
  names      the name create_job gives a job with no name
  resume     resume_job on the finished job, as it is and after update_job gave it a new schedule
  created    create_job with every option it takes (the full record it writes)
"""
import json
import os
import platform
import sys
from pathlib import Path

from golden_setup import freeze_cron_clock as freeze, temp_dir, upstream_home

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-edges"
upstream_home("golden-cron-edges-")
os.environ.pop("HERMES_TIMEZONE", None)
for k in list(os.environ):
    if k.endswith("_HOME_CHANNEL") or k.endswith("_HOME_ROOM") or k.endswith("_HOME_ADDRESS"):
        os.environ.pop(k)
import logging  # noqa: E402

logging.disable(logging.CRITICAL)
import hermes_time  # noqa: E402
from cron import jobs  # noqa: E402

if len(sys.argv) > 2 and sys.argv[1] == "view":
    home = Path(sys.argv[2]).resolve()
    os.environ["HERMES_HOME"] = str(home)
    hermes_time.reset_cache()
    with jobs.use_cron_store(home):
        if len(sys.argv) > 3:
            freeze(sys.argv[3])
        loaded = jobs.load_jobs()
        due = [j["id"] for j in jobs.get_due_jobs()]
        print(json.dumps({"jobs": loaded, "due": due, "after": jobs.load_jobs()}, indent=2, ensure_ascii=False))
    sys.exit(0)

# Job ids from a counter, so a regenerated fixture differs only where upstream's answers do.
import itertools  # noqa: E402
import uuid  # noqa: E402

_ids = itertools.count(1)
jobs.uuid.uuid4 = lambda: uuid.UUID(int=(0xA00000000000 + next(_ids)) << 80)

NOW = "2026-11-20T15:04:05+00:00"
ZONES = ["UTC", "America/New_York", "Asia/Kolkata"]
SCHEDULES = [
    # ISO timestamps: the forms datetime.fromisoformat reads
    "2027-01-10T09", "2027-01-10T09:30", "2027-01-10T09:30:15", "2027-01-10T09:30:15.25",
    "2027-01-10T09:30:15.1234567", "2027-01-10T0930", "2027-01-10T093015", "20270110T0930", "20270110T09:30",
    "2027-01-10", "2027-01-10 09:30", "2027-01-10t09:30", "2027-01-10_09:30", "2027-01-10T09Z", "2027-01-10T09:30Z",
    "2027-01-10T09:30+05", "2027-01-10T09:30+0530", "2027-01-10T09:30+05:30", "2027-01-10T09:30-08:00",
    "2027-01-10T09:30-00:00", "2027-01-10T09:30:15.5+01:00", "2027-01-10T09:30:00+05:30:15", "2027-01-10T09.5",
    "2027-01-10T09:30.5", "2027-01-10T24:00", "2027-02-30T09:00", "2027-13-01", "2027-1-10", "2027-01-10T9:30",
    "2027-01-10T09:30 +05:00", "2027-01-10T", "2027-01-10T09:30:60", "2027-W02-1", "2027-010",
    # near the clock: inside and outside the one-shot grace window
    "2026-11-20T15:03Z", "2026-11-20T15:01Z", "2026-11-20", "2026-11-20T10:03", "2026-11-20T20:33",
    # New York's clock change: an hour skipped (02:30 does not exist), an hour repeated (01:30 twice)
    "2027-03-14T02:30", "2027-03-14T03:30", "2027-11-07T01:30", "2027-11-07T01:30-05:00", "2027-03-14",
    # durations, once and repeating
    "0m", "every 0m", "every 0h", "every 0d", "every 1m", "every 007m", "every 90 minutes", "every 1 hour",
    "every 2 days", "Every 30M", "EVERY 2H", "every\t30m", "every  30m", "every 30", "every 1.5h", "every -5m",
    "every 1w", "1 min", "30 m", "45 minutes", "1d", "-5m", "every", "every ", "",
    "every 99999999d", "99999999d",
    # cron expressions: upstream takes only digits, *, -, / and , in the first five fields
    "0 9 * * *", "0 9 * * MON", "0 9 * * mon-fri", "0 9 ? * *", "0 9 * JAN *", "0 9 L * *", "0 9 * * 5L",
    "0 9 * * 1#2", "0 9 * * TUE", "0 9 * * * 0 2027 5", "  0 9 * * *  ", "@daily",
    # words
    "tomorrow", "Tomorrow", "now", "noon",
]
_store = []


def use_home(zone, env=None):
    home = temp_dir("golden-cron-edges-")
    if _store:
        _store.pop().__exit__(None, None, None)
    _store.append(jobs.use_cron_store(home))
    _store[-1].__enter__()
    (home / "config.yaml").write_text(f"timezone: {zone}\n")
    os.environ["HERMES_HOME"] = str(home)
    hermes_time.reset_cache()
    assert str(hermes_time.get_timezone()) == zone, zone
    return home


def refusal(e):
    return {"error": type(e).__name__, "message": str(e)}


def view(job, keys=("enabled", "state", "next_run_at", "repeat", "schedule", "schedule_display")):
    return {k: job.get(k) for k in keys}


def raw(job_id):
    return next(j for j in jobs.load_jobs() if j["id"] == job_id)


schedules = []
for zone in ZONES:
    use_home(zone)
    for text in SCHEDULES:
        freeze(NOW)
        try:
            job = jobs.create_job("p", text, name="n")
            schedules.append({"zone": zone, "input": text, **view(job, ("schedule", "next_run_at", "repeat"))})
        except Exception as e:  # OverflowError too: create_job lets it through
            schedules.append({"zone": zone, "input": text, **refusal(e)})

# --- edits -------------------------------------------------------------------------------------------------------
from tools import cronjob_tools  # noqa: E402

EDIT_TO = ["every 1h", "0 9 * * *", "2027-01-10T09:30", "30m"]


def finished_job():
    """A one-shot that ran and is done: upstream marks it completed and disabled (its repeat left open)."""
    freeze(NOW)
    job = jobs.create_job("p", "2026-11-20T15:30Z", name="finished")
    jobs.update_job(job["id"], {"repeat": {"times": None, "completed": 0}})
    freeze("2026-11-20T15:30:05+00:00")
    jobs.mark_job_run(job["id"], True)
    return raw(job["id"])


def paused_job():
    freeze(NOW)
    job = jobs.create_job("p", "every 2h", name="paused")
    jobs.pause_job(job["id"], "because")
    return raw(job["id"])


def partway_job():
    freeze(NOW)
    job = jobs.create_job("p", "every 2h", name="partway", repeat=3)
    freeze("2026-11-20T17:04:05+00:00")
    jobs.mark_job_run(job["id"], True)
    return raw(job["id"])


def errored_job():
    """A recurring job upstream left enabled with state error (its next time could not be computed)."""
    freeze(NOW)
    job = jobs.create_job("p", "every 2h", name="errored")
    jobs.update_job(job["id"], {"state": "error", "last_status": "error", "last_error": "x"})
    return raw(job["id"])


edits = []
use_home("UTC")
EDIT_AT = "2026-11-21T08:00:00+00:00"
for make in (finished_job, paused_job, partway_job, errored_job):
    for to in EDIT_TO:
        for via in ("update_job", "cronjob_tool"):
            before = make()
            freeze(EDIT_AT)
            try:
                if via == "update_job":
                    jobs.update_job(before["id"], {"schedule": to})
                else:
                    out = json.loads(cronjob_tools.cronjob(action="update", job_id=before["id"], schedule=to))
                    assert out.get("success"), out
                after = raw(before["id"])
                edits.append({"job": make.__name__, "to": to, "via": via, "now": EDIT_AT, "before": before,
                              "after": view(after)})
            except Exception as e:
                edits.append({"job": make.__name__, "to": to, "via": via, "now": EDIT_AT, "before": before,
                              **refusal(e)})

# --- resuming a finished job (the Cron page's way back after an edit) --------------------------------------------
resume = []
use_home("UTC")
for to in (None, "every 1h", "2027-01-10T09:30"):
    before = finished_job()
    freeze(EDIT_AT)
    if to:
        jobs.update_job(before["id"], {"schedule": to})
    try:
        jobs.resume_job(before["id"])
        resume.append({"edited_to": to, "now": EDIT_AT, "before": before, "after": view(raw(before["id"]))})
    except Exception as e:
        resume.append({"edited_to": to, "now": EDIT_AT, "before": before, **refusal(e)})

# --- delivery with nowhere to deliver ------------------------------------------------------------------------------
from cron import scheduler  # noqa: E402

delivery = []
use_home("UTC")
for deliver, origin in [
    ("telegram", None), ("origin", None), ("telegram,discord", None), ("local", None), ("nosuchplatform", None),
    ("discord", {"platform": "telegram", "chat_id": "42"}), ("origin,telegram", None),
]:
    freeze(NOW)
    job = jobs.create_job("p", "every 1h", name=f"deliver {deliver}", deliver=deliver, origin=origin)
    targets = scheduler._resolve_delivery_targets(job)
    if targets:
        delivery.append({"deliver": deliver, "origin": origin, "targets": targets})
        continue
    err = scheduler._deliver_result(raw(job["id"]), "hello")
    freeze("2026-11-20T16:04:05+00:00")
    jobs.mark_job_run(job["id"], True, None, delivery_error=err)
    after = raw(job["id"])
    delivery.append({"deliver": deliver, "origin": origin, "targets": [], "delivery_error": err,
                     "after": {k: after.get(k) for k in ("last_status", "last_error", "last_delivery_error", "state",
                                                         "enabled")}})

# --- every 0m through a run and a tick ----------------------------------------------------------------------------
use_home("UTC")
freeze(NOW)
j0 = jobs.create_job("p", "every 0m", name="zero")
created0 = raw(j0["id"])["next_run_at"]
RUN0 = "2026-11-20T15:05:00+00:00"
freeze(RUN0)
jobs.mark_job_run(j0["id"], True)
after_run = view(raw(j0["id"]))
TICK0 = "2026-11-20T15:06:00+00:00"
freeze(TICK0)
due0 = [j["id"] for j in jobs.get_due_jobs()]
after_tick = view(raw(j0["id"]))
interval0 = {"created_at": NOW, "created_next_run_at": created0, "run_at": RUN0, "after_run": after_run,
             "tick_at": TICK0, "due": due0 == [j0["id"]], "after_tick": after_tick}

# --- repeat shapes mark_job_run reads -----------------------------------------------------------------------------
repeat = []
for shape in ({}, None, "missing"):
    use_home("UTC")
    freeze(NOW)
    job = jobs.create_job("p", "every 1h", name="r")
    all_jobs = jobs.load_jobs()
    for j in all_jobs:
        if shape == "missing":
            j.pop("repeat", None)
        else:
            j["repeat"] = shape
    jobs.save_jobs(all_jobs)
    freeze("2026-11-20T16:04:05+00:00")
    jobs.mark_job_run(job["id"], True)
    after = raw(job["id"])
    repeat.append({"repeat": shape, "after": {"repeat": after.get("repeat", "missing"),
                                              "next_run_at": after.get("next_run_at"), "state": after.get("state")}})

# --- the name create_job gives a job left unnamed: its prompt's first 50 characters, stripped -----------------------
names = []
use_home("UTC")
for prompt in ["check the disk usage on every mounted volume and then report any over 90%", "short prompt",
               "x" * 49 + " tail of the prompt"]:
    freeze(NOW)
    names.append({"prompt": prompt, "name": jobs.create_job(prompt, "every 1h")["name"]})

# --- a job made with every option ---------------------------------------------------------------------------------
use_home("Asia/Kolkata")
freeze(NOW)
wd = str(temp_dir("golden-cron-wd-"))
full = jobs.create_job(
    "summarise the logs", "0 9 * * 1-5", name="everything", repeat=4, deliver="telegram:-1001:17",
    origin={"platform": "telegram", "chat_id": "-1001", "chat_name": "ops", "thread_id": "17"},
    skills=["alpha", "beta"], model="m1", provider="openrouter", base_url="https://example.invalid/v1/",
    script="collect.py", context_from=["abc123abc123"], enabled_toolsets=["terminal", " web "], workdir=wd,
    attach_to_session=True)
full_raw = raw(full["id"])
full_raw["workdir"] = "<workdir>"

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({
    "python": platform.python_version(),
    "now": NOW,
    "schedules": schedules,
    "edits": edits,
    "delivery": delivery,
    "interval0": interval0,
    "repeat": repeat,
    "resume": resume,
    "names": names,
    "created": {"zone": "Asia/Kolkata", "now": NOW, "job": full_raw},
}, indent=2, ensure_ascii=False) + "\n")
(OUT / "README.md").write_text(
    "Written by `scripts/golden/cron_edges.py` running upstream's own cron code (`cron.jobs`, `cron.scheduler`,\n"
    "`tools.cronjob_tools`; the hermes-agent fork at commit 9a75ff049b020ab5b24f76892f50f59064811028) under\n"
    f"Python {platform.python_version()} at a frozen clock. Read by `src-main/cron/upstream-edges.test.ts`.\n"
)
print(f"schedules {len(schedules)}, edits {len(edits)}, delivery {len(delivery)}")
