#!/usr/bin/env python3
"""Upstream's own next-run times for the cron expressions its create_job accepts, for Caduceus's schedule reader.

Usage: CRONITER_SRC=DIR /usr/bin/python3 scripts/golden/cron_schedules.py
  CRONITER_SRC: a folder holding the `croniter` package upstream pins (pyproject: croniter==6.0.0; its source from
  the croniter repository, tag 6.0.0, `src/`). Without it the system's croniter is used (Debian ships 1.3.5, which
  refuses wrapped ranges: regenerate with 6.0.0). HERMES_UPSTREAM (default /work/upstream) is the upstream checkout.
Writes test/fixtures/upstream/cron-schedules/cases.json:
  created  per expression and zone, at a frozen clock: the job cron.jobs.create_job writes (schedule, next_run_at)
           and the two runs after it, each cron.jobs.compute_next_run(schedule, <the run before>) as upstream's
           mark_job_run computes them
  aliases  `@daily`-style expressions (create_job refuses them; a hand-edited jobs.json has them and upstream's
           compute_next_run reads them): the same three runs
  refused  expressions create_job refuses, with its message
Cases whose runs cross a daylight-saving change are left out (croniter is off by an hour there with zoneinfo
zones; those are upstream's bugs, not a behaviour to copy: cron_dst.py compares them) and so are starts near the end of February (croniter
6.0.0 skips the 1st of March there).
"""
import json
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-schedules"
if os.environ.get("CRONITER_SRC"):
    sys.path.insert(0, os.environ["CRONITER_SRC"])
sys.path.insert(0, UPSTREAM)
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="golden-cron-schedules-")
os.environ.pop("HERMES_TIMEZONE", None)
import croniter as croniter_pkg  # noqa: E402
import hermes_time  # noqa: E402
from cron import jobs  # noqa: E402

CRONITER_VERSION = getattr(croniter_pkg, "__version__", None) or "unknown"
if CRONITER_VERSION == "unknown":
    # The source tree carries no version attribute; its tag is what CRONITER_SRC was taken from.
    CRONITER_VERSION = os.environ.get("CRONITER_VERSION", "unknown")

EXPRESSIONS = [
    # Sunday as 7 next to 0 or in a list; ranges that wrap around the end of their field
    "0 12 * * 0,7",
    "0 9 * * 1,7",
    "0 9 * * 5-7",
    "0 0 * * 6-0",
    "0 22-2 * * *",
    "0 0 28-3/2 * *",
    "0 0 7-5 * *",
    "0 9 * * 5-2/2",
    # steps from a start (to the field's end, 6 for days of the week), a range from a value to itself
    "0 9 * * 1-7/3",
    "0 9 * * 3/2",
    "0 18-18 * * *",
    "59/5 * * * *",
    "0 9 * 12/3 *",
    # a value twice; day fields covering every value (the either-day rule)
    "0 9 1,1 * *",
    "0 9 1 * 0-6",
    "0 9 1-31 * 1",
    "0 9 1 * 1-7",
    # the common forms, for contrast
    "0 9 1,15 * 1",
    "0 9 */2 * 1",
    "30 8 * * 1-5",
    "*/15 9-17 * * 1-5",
    "0 */6 * * *",
    "0 9 * * * 30",
    # croniter's seventh field: the year
    "0 9 * * * 0 2027",
    "30 8 1 * * 0 2027-2028",
    "0 0 1 1 * 0 */2",
    "0 9 * * 1 15 2026-2030",
]
ALIASES = ["@daily", "@hourly", "@weekly", "@monthly", "@yearly", "@annually", "@midnight"]
REFUSED = ["0 9 * * 7 30", "0 9 * * 7 0 2027", "0 9 * * * 0 2100", "0 24 * * *", "0 9 0 * *", "0 9 * * 8", "*/0 * * * *"]
ZONES = ["UTC", "Asia/Kolkata", "America/New_York"]
NOWS = ["2026-11-20T15:04:05+00:00", "2027-06-30T23:59:59+00:00"]

_store = []


def use_home(zone):
    home = Path(tempfile.mkdtemp(prefix="golden-cron-schedules-"))
    if _store:
        _store.pop().__exit__(None, None, None)
    _store.append(jobs.use_cron_store(home))
    _store[-1].__enter__()
    (home / "config.yaml").write_text(f"timezone: {zone}\n")
    os.environ["HERMES_HOME"] = str(home)
    hermes_time.reset_cache()
    assert str(hermes_time.get_timezone()) == zone, zone


def freeze(iso):
    dt = datetime.fromisoformat(iso).astimezone(hermes_time.get_timezone())
    jobs._hermes_now = lambda: dt
    return dt


def runs_after(schedule, first):
    out = [first]
    for _ in range(2):
        out.append(jobs.compute_next_run(schedule, out[-1]))
    return out


def steady(now, runs):
    """No daylight-saving change between now and the last run."""
    offsets = {now.utcoffset()} | {datetime.fromisoformat(r).utcoffset() for r in runs}
    return len(offsets) == 1


created, aliases, refused, skipped = [], [], [], []
for zone in ZONES:
    use_home(zone)
    for iso in NOWS:
        for expr in EXPRESSIONS:
            now = freeze(iso)
            job = jobs.create_job("p", expr, name=expr)
            runs = runs_after(job["schedule"], job["next_run_at"])
            if not steady(now, runs):
                skipped.append({"zone": zone, "now": iso, "expr": expr})
                continue
            created.append({"zone": zone, "now": now.isoformat(), "schedule": job["schedule"], "runs": runs})
        for expr in ALIASES:
            now = freeze(iso)
            try:
                jobs.create_job("p", expr, name=expr)
                raise AssertionError(f"upstream accepted {expr}")
            except ValueError:
                pass
            schedule = {"kind": "cron", "expr": expr, "display": expr}
            runs = runs_after(schedule, jobs.compute_next_run(schedule))
            if not steady(now, runs):
                skipped.append({"zone": zone, "now": iso, "expr": expr})
                continue
            aliases.append({"zone": zone, "now": now.isoformat(), "schedule": schedule, "runs": runs})
use_home("UTC")
freeze(NOWS[0])
for expr in REFUSED:
    try:
        jobs.create_job("p", expr, name=expr)
        raise AssertionError(f"upstream accepted {expr}")
    except ValueError as e:
        refused.append({"expr": expr, "message": str(e)})

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({
    "croniter": CRONITER_VERSION,
    "created": created,
    "aliases": aliases,
    "refused": refused,
    "skipped": skipped,
}, indent=2) + "\n")
(OUT / "README.md").write_text(
    "Written by `scripts/golden/cron_schedules.py` running upstream's own `cron.jobs.create_job` and\n"
    "`compute_next_run` (the hermes-agent fork at commit 9a75ff049b020ab5b24f76892f50f59064811028) with croniter\n"
    f"{CRONITER_VERSION} (upstream's pin) at a frozen clock. Read by `src-main/cron/upstream-schedules.test.ts`.\n"
)
print(f"created {len(created)}, aliases {len(aliases)}, refused {len(refused)}, skipped {len(skipped)}")
