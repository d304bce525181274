#!/usr/bin/env python3
"""Upstream's next-run times for cron expressions across daylight-saving changes, beside the times the expression
names on the zone's wall clock, for Caduceus's schedule reader (upstream fork at schema v21, commit
9a75ff049b020ab5b24f76892f50f59064811028: cron/jobs.py compute_next_run, croniter over the profile's zone).

Usage: CRONITER_SRC=DIR /usr/bin/python3 scripts/golden/cron_dst.py
  CRONITER_SRC: a folder holding the `croniter` package upstream pins (pyproject: croniter==6.0.0; its source from
  the croniter repository, tag 6.0.0, `src/`). HERMES_UPSTREAM (default /work/upstream) is the upstream checkout.
Writes test/fixtures/upstream/cron-dst/cases.json, one row per zone, change and expression:
  upstream  the job create_job would store at `now` (a day before the change, the profile's timezone set to the
            zone) and each run after it, compute_next_run(schedule, <the run before>) as mark_job_run computes them,
            until a day after the change
  wall      the same runs worked out on the wall clock instead (no croniter time zone arithmetic): croniter over naive
            wall times, each read in the zone with Python's zoneinfo rules — a time the clock skips runs at the
            instant it names with the offset from before (fold=0: New York's 02:30 is 07:30Z, 03:30 EDT), once per
            skipped stretch and not after a later real time; a time the clock repeats runs at its first occurrence,
            and at the second too when the hour field starts with `*` (a job that runs every hour runs in each real
            hour); written as the instant's wall time in the zone with its offset there
  agrees    whether upstream's instants are the wall clock's
Rows where upstream does not agree are croniter 6.0.0's daylight-saving errors with zoneinfo zones (a run an hour
early and again on time, an hour late, a repeated hour skipped); Caduceus keeps the wall clock's times there.
"""
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from golden_setup import upstream_home, write_golden

if os.environ.get("CRONITER_SRC"):
    sys.path.insert(0, os.environ["CRONITER_SRC"])
HOME = upstream_home("golden-cron-dst-")
os.environ.pop("HERMES_TIMEZONE", None)
import croniter as croniter_pkg  # noqa: E402
from croniter import croniter  # noqa: E402
from zoneinfo import ZoneInfo  # noqa: E402

import hermes_time  # noqa: E402
from cron import jobs  # noqa: E402

CRONITER_VERSION = getattr(croniter_pkg, "__version__", None) or os.environ.get("CRONITER_VERSION", "6.0.0")
DEST = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-dst" / "cases.json"

# (zone, a moment a day before the change) — spring-forward and fall-back in each; Lord Howe's clock moves by half
# an hour, Nuuk's skips the hour before midnight, Troll's moves by two hours
CHANGES = [
    ("America/New_York", "2026-03-07T12:00:00"), ("America/New_York", "2026-10-31T12:00:00"),
    ("Europe/London", "2026-03-28T12:00:00"), ("Europe/London", "2026-10-24T12:00:00"),
    ("Australia/Sydney", "2026-04-04T12:00:00"), ("Australia/Sydney", "2026-10-03T12:00:00"),
    ("Australia/Lord_Howe", "2026-04-04T12:00:00"), ("Australia/Lord_Howe", "2026-10-03T12:00:00"),
    ("America/Nuuk", "2026-03-28T12:00:00"), ("Antarctica/Troll", "2026-10-24T12:00:00"),
]
EXPRS = ["30 2 * * *", "30 1 * * *", "0 3 * * *", "0 9 * * *", "0 0 * * *", "30 23 * * *", "0 * * * *",
         "*/30 * * * *", "*/20 2 * * *", "15 1,2 * * *", "0 2 * * 0"]
SPAN = timedelta(days=2)


def wall_runs(expr, zone, now, end):
    z = ZoneInfo(zone)
    hour_wild = expr.split()[1].startswith("*")
    it = croniter(expr, (now.astimezone(z) - timedelta(hours=3)).replace(tzinfo=None))
    out = []  # (instant, wall time, skipped by the clock)
    while True:
        w = it.get_next(datetime)
        first, second = w.replace(tzinfo=z, fold=0), w.replace(tzinfo=z, fold=1)
        if first.astimezone(timezone.utc) > end + timedelta(hours=3):
            break
        exists = first.astimezone(timezone.utc).astimezone(z).replace(tzinfo=None) == w
        if not exists:
            out.append((first.astimezone(timezone.utc), w, True))
        else:
            out.append((first.astimezone(timezone.utc), w, False))
            if hour_wild and first.utcoffset() != second.utcoffset():
                out.append((second.astimezone(timezone.utc), w, False))
    runs, latest_wall = [], None
    for at, w, skipped in sorted(out):
        if at <= now or at > end or (runs and at == runs[-1]):
            continue
        # a skipped time runs only while no later wall time has run (once per skipped stretch)
        if skipped and latest_wall is not None and w < latest_wall:
            continue
        runs.append(at)
        real_wall = at.astimezone(z).replace(tzinfo=None)
        latest_wall = real_wall if latest_wall is None else max(latest_wall, real_wall)
    return [r.astimezone(z).isoformat() for r in runs]


def upstream_runs(expr, now, end):
    jobs._hermes_now = lambda: now
    schedule = jobs.parse_schedule(expr)
    runs = [jobs.compute_next_run(schedule)]
    while datetime.fromisoformat(runs[-1]) <= end:
        runs.append(jobs.compute_next_run(schedule, runs[-1]))
    return runs[:-1]


def main():
    rows = []
    for zone, start in CHANGES:
        (HOME / "config.yaml").write_text(f"timezone: {zone}\n")
        hermes_time.reset_cache()
        assert str(hermes_time.get_timezone()) == zone
        now = datetime.fromisoformat(start).replace(tzinfo=ZoneInfo(zone))
        end = now + SPAN
        for expr in EXPRS:
            up = upstream_runs(expr, now, end)
            wall = wall_runs(expr, zone, now, end)
            same = [datetime.fromisoformat(t).timestamp() for t in up] == [datetime.fromisoformat(t).timestamp() for t in wall]
            rows.append({"zone": zone, "now": now.isoformat(), "end": end.isoformat(), "expr": expr,
                         "upstream": up, "wall": wall, "agrees": same})
    write_golden(DEST, "scripts/golden/cron_dst.py", {"croniter": CRONITER_VERSION, "rows": rows})
    for r in rows:
        print("same " if r["agrees"] else "DIFF ", r["zone"], r["now"][:10], r["expr"])


if __name__ == "__main__":
    sys.exit(main())
