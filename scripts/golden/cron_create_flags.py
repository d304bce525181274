"""Which `hermes cron create` lines upstream's own CLI accepts with its job flags (`--skill`, repeatable; `--script`;
`--no-agent`; `--workdir`), which it refuses, and the job each accepted one leaves in cron/jobs.json (upstream fork at
schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028: hermes_cli/cron.py cron_create, tools/cronjob_tools.py,
cron/jobs.py create_job).

  /usr/bin/python3 scripts/golden/cron_create_flags.py        # HERMES_UPSTREAM defaults to /work/upstream

Each line runs in a fresh home holding scripts/watch.sh, with a folder and a file beside the home for --workdir
(written as <DIR> and <FILE> in the fixture, resolved to the case's real paths by the test). Writes
test/fixtures/upstream/cron-create-flags/cases.json: per case the argv after `hermes cron create`, the exit code, whether
upstream refused it (`Failed to create job` or an argparse error), and for an accepted one the job's prompt, name,
skill, skills, script, no_agent and workdir as jobs.json holds them.
"""
import json
import sys
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

DEST = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-create-flags"
KEYS = ("prompt", "name", "skill", "skills", "script", "no_agent", "workdir")
CASES = [
    ("skill alone", ["every 1h", "--skill", "briefing"]),
    ("skills repeated, one twice, one blank", ["every 1h", "check the news", "--skill", "a", "--skill", " b ", "--skill", "a", "--skill", " "]),
    ("script with the agent", ["every 1h", "summarise this", "--script", "watch.sh"]),
    ("script without the agent", ["every 1h", "--script", "watch.sh", "--no-agent"]),
    ("no agent with a prompt too", ["every 1h", "ignored", "--script", "watch.sh", "--no-agent", "--skill", "x"]),
    ("script that does not exist yet", ["every 1h", "p", "--script", "later/run.py"]),
    ("no agent without a script", ["every 1h", "p", "--no-agent"]),
    ("absolute script", ["every 1h", "p", "--script", "/etc/passwd"]),
    ("home script", ["every 1h", "p", "--script", "~/x.sh"]),
    ("script escaping scripts/", ["every 1h", "p", "--script", "../config.yaml"]),
    ("blank script, blank skill, no prompt", ["every 1h", "--script", " ", "--skill", " "]),
    ("no prompt, no skill", ["every 1h"]),
    ("workdir", ["every 1h", "p", "--workdir", "<DIR>"]),
    ("workdir with a trailing slash", ["every 1h", "p", "--workdir", "<DIR>/"]),
    ("relative workdir", ["every 1h", "p", "--workdir", "somewhere"]),
    ("workdir that does not exist", ["every 1h", "p", "--workdir", "<DIR>/missing"]),
    ("workdir a file", ["every 1h", "p", "--workdir", "<FILE>"]),
    ("blank workdir", ["every 1h", "p", "--workdir", " "]),
]


def run(argv):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        (home / "scripts").mkdir(parents=True)
        (home / "scripts" / "watch.sh").write_text("echo ok\n")
        folder = Path(tmp) / "work"
        folder.mkdir()
        (Path(tmp) / "notes.txt").write_text("x")
        real = [a.replace("<DIR>", str(folder)).replace("<FILE>", str(Path(tmp) / "notes.txt")) for a in argv]
        p = hermes(home, "cron", "create", *real, check=False)
        jobs_file = home / "cron" / "jobs.json"
        jobs = json.loads(jobs_file.read_text())["jobs"] if jobs_file.exists() else []
        out = {"code": p.returncode, "refused": not jobs}
        if jobs:
            job = {k: jobs[0].get(k) for k in KEYS}
            if isinstance(job["workdir"], str):
                job["workdir"] = job["workdir"].replace(str(folder), "<DIR>")
            out["job"] = job
        else:
            out["said"] = [l.replace(tmp, "<TMP>") for l in (p.stdout + p.stderr).strip().splitlines()[-1:]]
        return out


def main():
    cases = [{"name": name, "argv": argv, **run(argv)} for name, argv in CASES]
    DEST.mkdir(parents=True, exist_ok=True)
    out = {"upstream_commit": upstream_commit(), "cases": cases}
    (DEST / "cases.json").write_text(json.dumps(out, indent=1) + "\n")
    for c in cases:
        print(c["name"], c["code"], c.get("job") or c.get("said"))


if __name__ == "__main__":
    sys.exit(main())
