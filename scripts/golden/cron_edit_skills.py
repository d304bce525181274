#!/usr/bin/env python3
"""What upstream's own `hermes cron edit` writes to cron/jobs.json for its skill and mode flags (`--skill`,
`--add-skill`, `--remove-skill`, `--clear-skills`, `--agent`, `--no-agent`, `--script`, `--workdir`), job by job
(upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028: hermes_cli/cron.py cron_edit,
tools/cronjob_tools.py update, cron/jobs.py update_job).

  /usr/bin/python3 scripts/golden/cron_edit_skills.py        # HERMES_UPSTREAM defaults to /work/upstream

The jobs are made by upstream's create_job (clock and zone held still), then three are changed by hand as older
writers and hand edits leave them: one with only the legacy single `skill` field, one with `skills: []` beside a
`skill`, one with neither field nor `no_agent`. Each case copies that home (config.yaml naming a custom endpoint's
model, scripts/watch.sh) afresh and runs `hermes cron edit ID ARGS` there as a user would; <DIR> in an argument is
a folder beside the home (the test gives its own). Writes test/fixtures/upstream/cron-edit/:
  home/       the home before any edit (config.yaml, scripts/watch.sh, cron/jobs.json)
  cases.json  per case: the job edited, argv after the id, exit code, whether upstream refused it (the job unchanged;
              its exit code is 0 then too, its line says so),
              and the job as jobs.json held it after (every field, in the file's order; <DIR> for the folder)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from golden_setup import freeze_cron_clock, upstream_home, write_files, write_golden
from upstream_cli import hermes

DEST = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-edit"
CONFIG = "model:\n  default: model-a\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\ntimezone: UTC\n"

HOME = upstream_home("golden-cron-edit-")
for var in ("HERMES_TIMEZONE", "HERMES_MODEL"):
    os.environ.pop(var, None)
os.environ["OPENAI_API_KEY"] = "sk-golden-not-a-key"
write_files(HOME, {"config.yaml": CONFIG, "scripts/watch.sh": "echo ok\n"})

from cron import jobs  # noqa: E402

freeze_cron_clock("2026-11-20T15:04:05+00:00")
made = {
    "list": jobs.create_job("brief me", "0 9 * * *", name="list", skills=["briefing", "digest"]),
    "legacy": jobs.create_job("brief me", "0 9 * * *", name="legacy", skill="briefing"),
    "empty-list": jobs.create_job("brief me", "0 9 * * *", name="empty-list", skill="briefing"),
    "plain": jobs.create_job("just a prompt", "every 2h", name="plain"),
    "bare": jobs.create_job("older writer", "every 2h", name="bare"),
    "watchdog": jobs.create_job(None, "every 1h", name="watchdog", script="watch.sh", no_agent=True),
    "skill-only": jobs.create_job(None, "every 1h", name="skill-only", skills=["briefing"]),
}
raw = json.loads((HOME / "cron" / "jobs.json").read_text())
for j in raw["jobs"]:
    if j["name"] == "legacy":
        j.pop("skills")  # a writer from before `skills`: the lone `skill` only
    if j["name"] == "empty-list":
        j["skills"] = []  # a hand edit emptied the list and left the legacy field
    if j["name"] == "bare":
        for k in ("skills", "skill", "no_agent", "script", "workdir"):
            j.pop(k, None)
(HOME / "cron" / "jobs.json").write_text(json.dumps(raw, indent=2))
IDS = {name: job["id"] for name, job in made.items()}

CASES = [
    ("add a skill, and one it has", "list", ["--add-skill", "notes", "--add-skill", "briefing"]),
    ("remove a skill", "list", ["--remove-skill", "briefing"]),
    ("remove and add the same skill", "list", ["--remove-skill", "briefing", "--add-skill", "briefing"]),
    ("remove a skill it does not have", "list", ["--remove-skill", "nothere"]),
    ("add skills trimmed, a blank and a repeat", "list", ["--add-skill", " notes ", "--add-skill", " ", "--add-skill", "notes"]),
    ("clear skills", "list", ["--clear-skills"]),
    ("clear wins over add", "list", ["--clear-skills", "--add-skill", "notes"]),
    ("replace wins over add and remove", "list", ["--skill", "notes", "--skill", "notes", "--add-skill", "x", "--remove-skill", "notes"]),
    ("legacy skill: add", "legacy", ["--add-skill", "digest"]),
    ("legacy skill: remove", "legacy", ["--remove-skill", "briefing"]),
    ("legacy skill: rename only", "legacy", ["--name", "legacy renamed"]),
    ("empty list beside a skill: add", "empty-list", ["--add-skill", "digest"]),
    ("empty list beside a skill: rename only", "empty-list", ["--name", "renamed"]),
    ("no skill fields: add", "bare", ["--add-skill", "digest"]),
    ("no skill fields: agent", "bare", ["--agent"]),
    ("skill-only job: clear skills", "skill-only", ["--clear-skills"]),
    ("agent on a watchdog", "watchdog", ["--agent"]),
    ("agent on an agent job", "plain", ["--agent"]),
    ("no-agent without a script", "plain", ["--no-agent"]),
    ("no-agent with a script", "plain", ["--no-agent", "--script", "watch.sh"]),
    ("agent after no-agent: the last wins", "watchdog", ["--no-agent", "--agent"]),
    ("no-agent after agent: the last wins", "plain", ["--agent", "--no-agent"]),
    ("clear the script", "watchdog", ["--script", "", "--agent"]),
    ("clear the script of a no-agent job", "watchdog", ["--script", ""]),
    ("script escaping scripts/", "plain", ["--script", "../config.yaml"]),
    ("workdir", "plain", ["--workdir", "<DIR>"]),
    ("workdir cleared", "plain", ["--workdir", "<DIR>", "--workdir", ""]),
    ("nothing to change", "legacy", []),
]


def run(job, argv):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(HOME, home, ignore=shutil.ignore_patterns("logs", "*.lock", ".jobs.lock", ".tick.lock"))
        folder = Path(tmp) / "work"
        folder.mkdir()
        real = [a.replace("<DIR>", str(folder)) for a in argv]
        before = json.loads((home / "cron" / "jobs.json").read_text())["jobs"]
        p = hermes(home, "cron", "edit", IDS[job], *real, check=False)
        after = json.loads((home / "cron" / "jobs.json").read_text())["jobs"]
        edited = next(j for j in after if j["id"] == IDS[job])
        said = p.stdout + p.stderr
        # refused: argparse's error, or the tool's `Failed to update job` (upstream's exit code is 0 then)
        out = {"code": p.returncode, "refused": p.returncode != 0 or "Failed to update job" in said}
        assert not out["refused"] or after == before
        if out["refused"]:
            out["said"] = [l.replace(tmp, "<TMP>") for l in said.strip().splitlines()[-1:]]
        else:
            text = json.dumps(edited).replace(json.dumps(str(folder))[1:-1], "<DIR>")
            out["job"] = json.loads(text)
        return out


def main():
    cases = [{"name": name, "job": job, "argv": argv, **{("after" if k == "job" else k): v for k, v in run(job, argv).items()}}
             for name, job, argv in CASES]
    dest_home = DEST / "home"
    if dest_home.exists():
        shutil.rmtree(dest_home)
    write_files(dest_home, {"config.yaml": CONFIG, "scripts/watch.sh": "echo ok\n",
                            "cron/jobs.json": (HOME / "cron" / "jobs.json").read_text()})
    write_golden(DEST / "cases.json", "scripts/golden/cron_edit_skills.py", {"jobs": IDS, "cases": cases})
    for c in cases:
        print(c["name"], c["code"], c.get("said") or {k: c["after"].get(k) for k in ("skills", "skill", "no_agent", "script", "workdir", "provider_snapshot", "model_snapshot")})


if __name__ == "__main__":
    sys.exit(main())
