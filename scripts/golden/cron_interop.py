#!/usr/bin/env python3
"""Golden answers from upstream's own cron code (cron.jobs) for the places Caduceus and upstream share a jobs.json.

Usage: /usr/bin/python3 scripts/golden/cron_interop.py   (Debian's python3-croniter; HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/cron-interop/cases.json:
  created  per zone (config.yaml `timezone`, or HERMES_TIMEZONE in the profile's .env): the job create_job writes for
           each schedule at a frozen clock (schedule, schedule_display, next_run_at, created_at)
  due      one jobs.json of odd cases (no next_run_at, state error, claims, a timezone move, a stale run, ...) and what
           get_due_jobs at a frozen clock answers: the due names and the file it leaves (`after`), then the file once
           upstream's ticker has claimed them (advance_next_run / claim_dispatch: `claimed`)
  resume   resume_job of a paused one-shot whose time has passed: upstream's refusal
The clock is frozen away from daylight-saving changes (the croniter Debian ships differs from upstream's pin there).
"""
import json
import os
from datetime import timedelta
from pathlib import Path

from golden_setup import freeze_cron_clock as freeze, temp_dir, upstream_home

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-interop"
upstream_home("golden-cron-")
os.environ.pop("HERMES_TIMEZONE", None)
import hermes_time  # noqa: E402
from cron import jobs  # noqa: E402

NOW = "2026-11-20T15:04:05+00:00"
SCHEDULES = [
    "0 9 * * *",
    "*/15 * * * *",
    "30 8 * * 1-5",
    "0 9 * * * 30",
    "every 30m",
    "every 2h",
    "2027-01-10T09:00",
    "2027-01-10T09:00+09:00",
    "2h",
    "45 minutes",
    # New York's 2027 changes (naive times read in each zone): the hour skipped on 14 March (upstream keeps the
    # offset from before it), the hour after, and the hour repeated on 7 November (fold=0: its first occurrence).
    "2027-03-14T02:30",
    "2027-03-14T03:30",
    "2027-11-07T01:30",
    "2027-11-07T02:30",
]


_store = []


def use_home(zone, via_env=False):
    home = temp_dir("golden-cron-")
    if _store:
        _store.pop().__exit__(None, None, None)
    _store.append(jobs.use_cron_store(home))
    _store[-1].__enter__()
    if zone and via_env:
        (home / ".env").write_text(f"HERMES_TIMEZONE={zone}\n")
        os.environ["HERMES_TIMEZONE"] = zone  # what upstream's start-up makes of that .env
    else:
        os.environ.pop("HERMES_TIMEZONE", None)
    (home / "config.yaml").write_text(f"timezone: {zone}\n" if zone and not via_env else "model:\n  default: m\n")
    os.environ["HERMES_HOME"] = str(home)
    hermes_time.reset_cache()
    try:
        from hermes_cli import config as hc
        if hasattr(hc, "_RAW_CONFIG_CACHE"):
            hc._RAW_CONFIG_CACHE.clear()
    except Exception:
        pass
    return home


def pick(job, keys):
    return {k: job.get(k) for k in keys}


created = []
for zone, via_env in [("America/New_York", False), ("Asia/Kolkata", False), ("UTC", False), ("Asia/Tokyo", True)]:
    use_home(zone, via_env)
    assert hermes_time.get_timezone() is not None and str(hermes_time.get_timezone()) == zone, zone
    freeze(NOW)
    for schedule in SCHEDULES:
        job = jobs.create_job("p", schedule, name=schedule)
        created.append({
            "zone": zone,
            "via": "env" if via_env else "config",
            "schedule_text": schedule,
            **pick(job, ["schedule", "schedule_display", "next_run_at", "created_at", "repeat"]),
        })

# The due scan, in New York (west of UTC: a time written at another offset whose wall time is still ahead reads as a
# timezone move). Not +00:00 for that case: Caduceus reads a +00:00 time as the same instant, since its older
# releases wrote every time in UTC (src-main/cron/scheduler.ts).
home = use_home("America/New_York")
now = freeze(NOW)
mk = lambda name, schedule: jobs.create_job(name, schedule, name=name)  # noqa: E731
for name, schedule in [
    ("null-next-interval", "every 30m"),
    ("error-state-interval", "every 30m"),
    ("null-next-cron", "0 9 * * *"),
    ("oneshot-fresh-claim", "2m"),
    ("oneshot-stale-claim-used-up", "2m"),
    ("oneshot-due", "2m"),
    ("oneshot-null-next-in-grace", "2m"),
    ("disabled-due", "every 30m"),
    ("cron-offset-moved", "0 12 * * *"),
    ("cron-due-same-offset", "0 9 * * *"),
    ("interval-stale", "every 30m"),
    ("interval-within-grace", "every 2h"),
    ("unreadable-next", "every 1h"),
    ("six-field-due", "0 9 * * * 30"),
]:
    mk(name, schedule)
ago = lambda **kw: (now - timedelta(**kw)).isoformat()  # noqa: E731
L = jobs.load_jobs()
for j in L:
    n = j["name"]
    if n == "null-next-interval":
        j["next_run_at"] = None
    if n == "error-state-interval":
        j.update(next_run_at=None, state="error", last_status="error", last_error="boom")
    if n == "null-next-cron":
        j["next_run_at"] = None
    if n == "oneshot-fresh-claim":
        j.update(next_run_at=ago(minutes=1), run_claim={"at": ago(minutes=1), "by": "otherhost:123"})
        j["repeat"]["completed"] = 1
    if n == "oneshot-stale-claim-used-up":
        j.update(next_run_at=ago(minutes=1), run_claim={"at": ago(hours=2), "by": "otherhost:123"})
        j["repeat"]["completed"] = 1
    if n == "oneshot-due":
        j["next_run_at"] = ago(seconds=30)
        j["schedule"]["run_at"] = j["next_run_at"]
    if n == "oneshot-null-next-in-grace":
        j["schedule"]["run_at"] = ago(seconds=60)
        j["next_run_at"] = None
    if n == "disabled-due":
        j.update(next_run_at=ago(minutes=1), enabled=False, state="paused")
    if n == "cron-offset-moved":
        # 12:00 New York written as 12:00 +01:00 by a writer on another clock: its wall time is still ahead.
        j["next_run_at"] = now.replace(hour=12, minute=0, second=0, microsecond=0).replace(tzinfo=None).isoformat() + "+01:00"
    if n == "cron-due-same-offset":
        j["next_run_at"] = now.replace(hour=9, minute=0, second=0, microsecond=0).isoformat()
    if n == "interval-stale":
        j["next_run_at"] = ago(hours=5)
    if n == "interval-within-grace":
        j["next_run_at"] = ago(minutes=10)
    if n == "unreadable-next":
        j["next_run_at"] = "next tuesday"
    if n == "six-field-due":
        j["next_run_at"] = ago(minutes=1)
jobs.save_jobs(L)
before = json.loads((home / "cron" / "jobs.json").read_text())
due_jobs = jobs.get_due_jobs()
due = sorted(j["name"] for j in due_jobs)
after = json.loads((home / "cron" / "jobs.json").read_text())
# What upstream's ticker does next, before it runs them (cron/scheduler.py): a recurring job's next time moves on,
# a finite one-shot's run is counted.
for j in due_jobs:
    if j["schedule"].get("kind") in ("cron", "interval"):
        jobs.advance_next_run(j["id"])
    else:
        assert jobs.claim_dispatch(j["id"])
claimed = json.loads((home / "cron" / "jobs.json").read_text())

# resume_job of a paused one-shot whose time has passed.
use_home("UTC")
freeze(NOW)
job = jobs.create_job("p", "2026-11-20T16:00", name="late")
jobs.pause_job(job["id"])
freeze("2026-11-20T17:00:00+00:00")
try:
    jobs.resume_job(job["id"])
    refusal = None
except ValueError as e:
    refusal = str(e)
assert refusal, "upstream resumed a past one-shot"

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({
    "now": NOW,
    "created": created,
    "due": {"zone": "America/New_York", "now": now.isoformat(), "before": before, "due": due, "after": after, "claimed": claimed},
    "resume": {"zone": "UTC", "created_at": NOW, "resumed_at": "2026-11-20T17:00:00+00:00", "schedule": "2026-11-20T16:00", "refusal": refusal},
}, indent=2) + "\n")
(OUT / "README.md").write_text(
    "Written by `scripts/golden/cron_interop.py` running upstream's own `cron.jobs` (the hermes-agent fork at\n"
    "commit 9a75ff049b020ab5b24f76892f50f59064811028, Debian's python3-croniter 1.3.5) at a frozen clock.\n"
    "Read by `src-main/cron/upstream-interop.test.ts`.\n"
)
print("due:", due)
print("written", OUT / "cases.json")
