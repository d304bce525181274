#!/usr/bin/env python3
"""A cron home written by upstream's own cron code with the job shapes the other cron goldens do not have.

Usage: /usr/bin/python3 scripts/golden/cron_variants.py        (HERMES_UPSTREAM, default /work/upstream; needs
         PYTHONPATH=/tmp/loopwork/pylib or any path with the `openai` package for upstream's run_job import)
       writes test/fixtures/upstream/cron-variants/{home/cron/jobs.json, home/skills/*, cases.json, README.md}
       /usr/bin/python3 scripts/golden/cron_variants.py view HOME
         upstream's view of HOME's jobs.json: cron.jobs.list_jobs(include_disabled=True) (load + its read-time
         normalisation) and, per job, compute_next_run(schedule, last_run_at) and its delivery targets
         (cron.scheduler._resolve_delivery_targets): {"jobs": [...], "next": {id: iso}, "targets": {id: [...]}}
The home: config.yaml's model was `model-a` on a `custom` endpoint when the jobs were made (create_job notes it in
`model_snapshot` / `provider_snapshot` for a job that pins neither) and is `model-b` now. Jobs: one following the
profile's model, one pinning its own, delivery to the origin chat / a platform named by the origin / origin with no
origin / a list of targets, a legacy single `skill`, a `skills` list, a repeat limit partly used (mark_job_run), a
paused job, one-shots at a zoned and a naive time, and two hand-edited shapes (an older writer's job with a lone
`skill` and none of the derived fields; a newer writer's job with fields this commit does not know).
cases.json: what upstream's run_job answers for the job following the profile's model now that it changed (its
spend guard refuses it before any model call), each job's delivery targets as upstream resolves them (and, for
origin without an origin, with home channels set), how its list_jobs shows each job, what a job reference (an id
or a name) resolves to, the repeat counts create_job and an edit store for a zero, negative or missing count,
which replies it treats as nothing to deliver, and what load_jobs reads from a jobs.json that is a bare list or
holds raw control characters in its strings.
"""
import json
import os
import shutil
import sys
import tempfile
from datetime import datetime
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-variants"
sys.path.insert(0, UPSTREAM)


def targets_of(scheduler, job):
    return [{k: t.get(k) for k in ("platform", "chat_id", "thread_id")} for t in scheduler._resolve_delivery_targets(job)]


def view(home):
    os.environ["HERMES_HOME"] = home
    from cron import jobs, scheduler

    with jobs.use_cron_store(home):
        listed = jobs.list_jobs(include_disabled=True)
        nxt = {j["id"]: jobs.compute_next_run(j["schedule"], j.get("last_run_at")) for j in listed}
        print(json.dumps({"jobs": listed, "next": nxt, "targets": {j["id"]: targets_of(scheduler, j) for j in listed}}))


if len(sys.argv) == 3 and sys.argv[1] == "view":
    view(sys.argv[2])
    sys.exit(0)

HOME = Path(tempfile.mkdtemp(prefix="golden-cron-variants-"))
os.environ["HERMES_HOME"] = str(HOME)
for var in ("HERMES_TIMEZONE", "HERMES_MODEL", "TELEGRAM_HOME_CHANNEL", "DISCORD_HOME_CHANNEL"):
    os.environ.pop(var, None)
ZONE = "Asia/Kolkata"
CONFIG = "model:\n  default: {model}\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\ntimezone: " + ZONE + "\n"
(HOME / "config.yaml").write_text(CONFIG.format(model="model-a"))
(HOME / ".env").write_text("OPENAI_API_KEY=sk-golden-not-a-key\n")
for name in ("briefing", "digest"):
    (HOME / "skills" / name).mkdir(parents=True)
    (HOME / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}\n---\n\nUse the {name} format.\n")

import hermes_time  # noqa: E402
from cron import jobs, scheduler  # noqa: E402

hermes_time.reset_cache()
assert str(hermes_time.get_timezone()) == ZONE
NOW = "2026-11-20T15:04:05+00:00"
now = datetime.fromisoformat(NOW).astimezone(hermes_time.get_timezone())
jobs._hermes_now = lambda: now

TG = {"platform": "telegram", "chat_id": "-1001234", "thread_id": "17", "chat_name": "Ops", "user_id": "42"}
made = {}
made["follows-default"] = jobs.create_job("summarise the inbox", "every 2h", name="follows-default")
made["pinned"] = jobs.create_job("summarise the inbox", "every 2h", name="pinned", model="model-x", provider="custom")
made["origin"] = jobs.create_job("daily digest", "30 8 * * 1-5", name="origin", origin=TG)
made["origin-platform"] = jobs.create_job("ping", "every 1d", name="origin-platform", deliver="telegram", origin=TG)
made["origin-missing"] = jobs.create_job("ping", "every 1d", name="origin-missing", deliver="origin")
made["targets"] = jobs.create_job("ping", "every 1d", name="targets", deliver="local,discord:555", origin=TG)
made["legacy-skill"] = jobs.create_job("brief me", "0 9 * * *", name="legacy-skill", skill="briefing")
made["skills"] = jobs.create_job("brief me", "0 9 * * *", name="skills", skills=["briefing", "digest"])
made["repeat-partly"] = jobs.create_job("count", "every 30m", name="repeat-partly", repeat=3)
jobs.mark_job_run(made["repeat-partly"]["id"], True)
made["paused"] = jobs.create_job("on hold", "0 */6 * * *", name="paused")
jobs.pause_job(made["paused"]["id"], reason="holiday")
made["once-zoned"] = jobs.create_job("call", "2027-01-10T09:00+09:00", name="once-zoned")
made["once-naive"] = jobs.create_job("call", "2027-01-10T09:00", name="once-naive")
made["older"] = jobs.create_job("older writer", "every 1h", name="older")
made["newer"] = jobs.create_job("newer writer", "every 1h", name="newer")
made["twin-1"] = jobs.create_job("one of two", "every 1d", name="Twin")
made["twin-2"] = jobs.create_job("one of two", "every 1d", name="twin")
made["nameless"] = jobs.create_job("a job whose name and display were cleared by hand", "0 7 * * 1-5")

raw = json.loads((HOME / "cron" / "jobs.json").read_text())
for j in raw["jobs"]:
    if j["name"] == "older":
        # As an older writer left it: no derived or later fields at all.
        for k in ("skills", "skill", "provider_snapshot", "model_snapshot", "state", "schedule_display", "enabled",
                  "paused_at", "paused_reason", "last_delivery_error", "enabled_toolsets", "workdir", "no_agent",
                  "context_from", "script", "base_url"):
            j.pop(k, None)
        j["skill"] = "digest"  # the single-skill field writers used before `skills`
    if j["id"] == made["nameless"]["id"]:
        j["name"] = None
        j["schedule_display"] = None
    if j["name"] == "newer":
        j["attach_to_session"] = True
        j["x_future"] = {"kept": [1, 2, 3]}
(HOME / "cron" / "jobs.json").write_text(json.dumps(raw, indent=2))

# The user switches the profile's default model afterwards.
(HOME / "config.yaml").write_text(CONFIG.format(model="model-b"))
from hermes_cli import config as hc  # noqa: E402

if hasattr(hc, "_RAW_CONFIG_CACHE"):
    hc._RAW_CONFIG_CACHE.clear()
job = next(j for j in jobs.load_jobs() if j["name"] == "follows-default")
ok, _doc, _final, error = scheduler.run_job(job)
assert not ok and "drift" in (error or ""), error

loaded = jobs.load_jobs()
targets = {j["name"]: targets_of(scheduler, j) for j in loaded}
# deliver=origin on a job with no origin: upstream falls back to the first platform with a home channel set.
os.environ["DISCORD_HOME_CHANNEL"] = "777"
os.environ["TELEGRAM_HOME_CHANNEL"] = "-100999"
home_fallback = {
    "env": {"TELEGRAM_HOME_CHANNEL": "-100999", "DISCORD_HOME_CHANNEL": "777"},
    "targets": targets_of(scheduler, next(j for j in loaded if j["name"] == "origin-missing")),
}
del os.environ["DISCORD_HOME_CHANNEL"], os.environ["TELEGRAM_HOME_CHANNEL"]
# What a job reference names (hermes cron pause/resume/remove/edit/run REF: an id, else a name ignoring case).
refs = {}
for ref in ("ORIGIN", "older", "twin", "no-such-job", made["pinned"]["id"]):
    try:
        hit = jobs.resolve_job_ref(ref)
        refs[ref] = {"id": hit["id"] if hit else None}
    except jobs.AmbiguousJobReference as e:
        refs[ref] = {"ambiguous": sorted(m["id"] for m in e.matches)}
# Repeat counts as create_job and the cronjob tool's update (what `hermes cron edit --repeat N` calls) store them.
from tools import cronjob_tools  # noqa: E402

repeats = {"created": [], "updated": []}
other = Path(tempfile.mkdtemp(prefix="golden-cron-repeat-"))
with jobs.use_cron_store(other):
    for sched, rep in (("30m", 0), ("30m", -2), ("30m", None), ("30m", 2), ("every 1h", 0), ("every 1h", 3)):
        repeats["created"].append({"schedule": sched, "repeat": rep, "stored": jobs.create_job("p", sched, repeat=rep)["repeat"]})
    for rep in (0, -1, 5):
        j = jobs.create_job("p", "every 1h", repeat=3)
        jobs.mark_job_run(j["id"], True)
        cronjob_tools.cronjob(action="update", job_id=j["id"], repeat=rep)
        repeats["updated"].append({"before": {"times": 3, "completed": 1}, "repeat": rep, "stored": jobs.get_job(j["id"])["repeat"]})
shutil.rmtree(other)
# Replies whose delivery upstream suppresses as a cron "nothing to report" (the output file is still written).
SILENCE = ["[SILENT]", "  silent \n", "NO_REPLY", "no  reply", "3 deals filtered\n\n[SILENT]", "[SILENT]\nnothing new",
           "[SILENT] No changes detected", "Silent retry succeeded", "I stayed [SILENT] but here is the report",
           "All quiet.", "NO_REPLY needed? no: the disk is full"]
silence = {text: scheduler._is_cron_silence_response(text) for text in SILENCE}
# How upstream shows each job (list_jobs: its read-time defaults for a missing name, display or state).
listed = {j["id"]: {k: j.get(k) for k in ("name", "schedule_display", "state", "deliver", "last_delivery_error")}
          for j in jobs.list_jobs(include_disabled=True)}

# jobs.json files upstream's load_jobs reads although they are not its own shape: a bare list of jobs, and strings
# holding raw control characters (a pasted tab and line break). What it reads from each.
repairs = []
one = [{k: v for k, v in j.items()} for j in loaded if j["name"] in ("pinned", "paused")]
texts = {
    "bare-list": json.dumps(one, indent=2),
    "control-chars": json.dumps({"jobs": one}, indent=2).replace("summarise the inbox", "summarise\tthe\ninbox")
    .replace("\\t", "\t").replace("\\n", "\n"),
}
for kind, text in texts.items():
    other = Path(tempfile.mkdtemp(prefix="golden-cron-repair-"))
    (other / "cron").mkdir()
    (other / "cron" / "jobs.json").write_text(text)
    with jobs.use_cron_store(other):
        repairs.append({"kind": kind, "text": text, "jobs": jobs.load_jobs()})
    shutil.rmtree(other)
assert "\t" in repairs[1]["text"] and repairs[1]["jobs"][0]["prompt"] == "summarise\tthe\ninbox"

if OUT.exists():
    shutil.rmtree(OUT)
(OUT / "home" / "cron").mkdir(parents=True)
shutil.copy(HOME / "cron" / "jobs.json", OUT / "home" / "cron" / "jobs.json")
shutil.copytree(HOME / "skills", OUT / "home" / "skills")
(OUT / "cases.json").write_text(json.dumps({
    "zone": ZONE,
    "now": NOW,
    "config_then": CONFIG.format(model="model-a"),
    "config_now": CONFIG.format(model="model-b"),
    "drift": {"name": "follows-default", "ok": ok, "error": error},
    "targets": targets,
    "repairs": repairs,
    "listed": listed,
    "refs": refs,
    "repeats": repeats,
    "silence": silence,
    "home_fallback": home_fallback,
}, indent=2) + "\n")
(OUT / "README.md").write_text(
    "Written by `scripts/golden/cron_variants.py` running upstream's own `cron.jobs` (create_job, mark_job_run,\n"
    "pause_job) and `cron.scheduler` (run_job, _resolve_delivery_targets) from the hermes-agent fork at commit\n"
    "9a75ff049b020ab5b24f76892f50f59064811028, at a frozen clock. `home/cron/jobs.json` holds the job shapes the\n"
    "other cron goldens lack; `cases.json` what upstream answered. Read by `src-main/cron/upstream-variants.test.ts`.\n"
)
shutil.rmtree(HOME)
print(json.dumps({"drift": error, "targets": targets}, indent=1))
