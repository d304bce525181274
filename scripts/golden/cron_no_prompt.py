"""Cron jobs upstream's own `hermes cron create` makes without a prompt, and what its `hermes cron list` and `hermes
cron edit` do with them (upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028).

  /usr/bin/python3 scripts/golden/cron_no_prompt.py        # HERMES_UPSTREAM defaults to /work/upstream

Upstream's create asks for a prompt or at least one skill, and a no-agent job needs only its script, so two everyday
jobs have an empty prompt: one that only loads a skill (`--skill briefing`) and a script watchdog (`--script watch.sh
--no-agent`). A third has a prompt, two skills and a working folder. `hermes cron list` shows each job's skills,
script, mode and working folder; `hermes cron edit ID --name ...` renames a prompt-less job (its prompt stays empty)
and `hermes cron edit ID --prompt ''` clears the prompt of the job with skills.

Writes test/fixtures/upstream/cron-no-prompt/: home/ (cron/jobs.json as create left it, the skill and the script) and
listed.json: the job ids, the upstream commit, per job the detail lines `hermes cron list` printed (`Skills:`,
`Script:`, `Mode:`, `Workdir:`), and per renamed (and cleared) job the name, prompt and skills jobs.json holds after
the edit.
"""
import json
import re
import shutil
import sys
from pathlib import Path

from golden_setup import temp_dir, write_files
from upstream_cli import hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
DEST = ROOT / "test" / "fixtures" / "upstream" / "cron-no-prompt"
DETAILS = ("Skills", "Script", "Mode", "Workdir")


def created_id(out):
    return re.search(r"Created job: ([0-9a-f]+)", out).group(1)


def main():
    home = temp_dir("golden-cron-no-prompt-")
    write_files(home, {
        "skills/briefing/SKILL.md":
            "---\nname: briefing\ndescription: Morning briefing\n---\nList today's meetings in three bullets.\n",
        "skills/digest/SKILL.md": "---\nname: digest\ndescription: d\n---\nOne line each.\n",
        "scripts/watch.sh": "df -h / | tail -1\n",
    })
    ids = {
        "skill-only": created_id(
            hermes(home, "cron", "create", "0 8 * * *", "--skill", "briefing", "--name", "skill-only").stdout
        ),
        "watchdog": created_id(
            hermes(home, "cron", "create", "every 1h", "--script", "watch.sh", "--no-agent", "--name", "watchdog").stdout
        ),
        "both": created_id(
            hermes(
                home, "cron", "create", "every 2h", "brief me", "--skill", "briefing", "--skill", "digest",
                "--workdir", "/tmp", "--name", "both",
            ).stdout
        ),
    }
    out = hermes(home, "cron", "list").stdout
    details = {}
    for name, job_id in ids.items():
        block = out[out.index(job_id):]
        block = block[: block.find("\n\n")] if "\n\n" in block else block
        details[name] = {
            m.group(1): m.group(2).strip()
            for m in re.finditer(r"^\s+(%s):\s+(.*)$" % "|".join(DETAILS), block, re.M)
        }
    if DEST.exists():
        shutil.rmtree(DEST)
    shutil.copytree(home, DEST / "home", ignore=shutil.ignore_patterns("logs", "*.lock", "output"))
    def stored(name):
        job = next(j for j in json.loads((home / "cron" / "jobs.json").read_text())["jobs"] if j["id"] == ids[name])
        return {"name": job["name"], "prompt": job["prompt"], "skills": job["skills"]}

    renamed = {}
    for name in ("skill-only", "watchdog"):
        hermes(home, "cron", "edit", ids[name], "--name", f"{name} renamed")
        renamed[name] = stored(name)
    # a job with skills keeps running them with no instruction once its prompt is cleared
    hermes(home, "cron", "edit", ids["both"], "--prompt", "")
    cleared = {"both": stored("both")}
    listed = {
        "upstream_commit": upstream_commit(), "jobs": ids, "details": details, "renamed": renamed, "cleared": cleared,
    }
    (DEST / "listed.json").write_text(json.dumps(listed, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(listed, indent=1))


if __name__ == "__main__":
    sys.exit(main())
