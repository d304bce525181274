#!/usr/bin/env python3
"""What upstream's own `hermes memory …`, `hermes cron status`, `hermes sessions optimize|repair` and argparse's usage
exits do, for the Caduceus verbs of the same names (test/cli-more-verbs.test.ts).

  /usr/bin/python3 scripts/golden/cli_more_verbs.py        # HERMES_UPSTREAM defaults to /work/upstream

memory: on a home whose config.yaml holds a comment, a model and one memory key, `memory setup holographic`, `memory
status`, `memory off`, `memory setup nosuch` and `memory reset` (nothing there; then USER.md alone with --target user):
what each printed (the home's path as <HOME>), its exit code, and the provider upstream's own config loader
(hermes_cli.config.load_config) selects after it.

cron: `hermes cron status` on jobs upstream's `cron create` made (one of them paused): its summary lines, and the
jobs.json it read (copied into the fixture, so the test reads the same jobs).

sessions: `hermes sessions optimize` on a copy of the fidelity home (the count line), and `hermes sessions repair
--check-only` on a fresh upstream home where upstream's SQLite indexed a message holding a NUL byte (it is healthy).

usage: the exit code of flags whose text argparse refuses (or takes: `--limit ١٢`), and the repeat count
`cron create --repeat 0|-2|1_0|١٢` stores.

Writes test/fixtures/upstream/cli-more-verbs/: answers.json and home/cron/jobs.json.
"""
import json
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "test" / "fixtures" / "upstream"
DEST = FIX / "cli-more-verbs"
START_CONFIG = "# my settings\nmodel:\n  default: some/model\nmemory:\n  memory_char_limit: 3000\n"

LOADER = (
    "import sys; sys.path.insert(0, sys.argv[1])\n"
    "from hermes_cli.config import load_config\n"
    "print(repr(load_config().get('memory', {}).get('provider')))"
)


def loaded_provider(home):
    """The memory provider upstream's config loader reads from home's config.yaml."""
    out = subprocess.run(
        ["/usr/bin/python3", "-c", LOADER, UPSTREAM],
        env={"HERMES_HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return eval(out.stdout.strip())  # a repr of a str (or None) printed by the line above


def run(home, *argv):
    p = hermes(home, *argv, check=False)
    return {"code": p.returncode, "stdout": p.stdout.replace(str(home), "<HOME>")}


def memory_cases():
    out = {"start_config": START_CONFIG}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "config.yaml").write_text(START_CONFIG)
        out["status_before"] = run(home, "memory", "status")
        out["setup"] = {**run(home, "memory", "setup", "holographic"), "provider": loaded_provider(home)}
        out["status_after_setup"] = run(home, "memory", "status")
        out["off"] = {**run(home, "memory", "off"), "provider": loaded_provider(home)}
        out["not_found"] = run(home, "memory", "setup", "nosuch")
        out["reset_nothing"] = run(home, "memory", "reset", "--yes")
        (home / "memories").mkdir(exist_ok=True)
        (home / "memories" / "USER.md").write_text("likes okapis\n")
        (home / "memories" / "MEMORY.md").write_text("the notes\n")
        out["reset_user"] = {
            **run(home, "memory", "reset", "--yes", "--target", "user"),
            "left": sorted(p.name for p in (home / "memories").iterdir() if p.suffix == ".md"),
        }
        out["bad_verb"] = run(home, "memory", "bogus")["code"]
        out["bad_target"] = run(home, "memory", "reset", "--target", "x")["code"]
    return out


def cron_status():
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        hermes(home, "cron", "create", "every 2h", "check the inbox", "--name", "inbox")
        hermes(home, "cron", "create", "0 9 * * *", "morning brief", "--name", "brief")
        made = hermes(home, "cron", "create", "every 30m", "say hi", "--name", "paused").stdout
        hermes(home, "cron", "pause", re.search(r"Created job: ([0-9a-f]+)", made).group(1))
        printed = hermes(home, "cron", "status").stdout
        (DEST / "home" / "cron").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(home / "cron" / "jobs.json", DEST / "home" / "cron" / "jobs.json")
    # the summary: the lines after the gateway's (which say no gateway runs here)
    return [line for line in printed.splitlines() if re.match(r"\s+(\d+ active job|Next run:|No active jobs)", line)]


def nul_home(home):
    """A fresh upstream home where upstream's SQLite indexed a message holding a NUL byte (a multimodal marker)."""
    shutil.copyfile(FIX / "import-rules" / "empty.db", home / "state.db")
    c = sqlite3.connect(home / "state.db")
    c.execute("INSERT INTO sessions (id, source, started_at) VALUES ('nul', 'cli', ?)", (time.time(),))
    c.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('nul', 'user', ?, ?)",
        ('look at the okapi\x00json:{"kind": "image"}', time.time()),
    )
    c.commit()
    c.close()


def sessions_cases():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        shutil.copyfile(FIX / "fidelity" / "home" / "state.db", home / "state.db")
        printed = run(home, "sessions", "optimize")
        out["optimize"] = {"code": printed["code"], "lines": printed["stdout"].splitlines()[:2]}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        nul_home(home)
        out["repair_nul_home"] = run(home, "sessions", "repair", "--check-only")
        out["sqlite_version"] = sqlite3.sqlite_version
    return out


def usage_cases():
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        codes = {
            " ".join(argv): hermes(home, *argv, check=False).returncode
            for argv in (
                ["sessions", "prune", "--min-messages", "abc", "--yes"],
                ["sessions", "prune", "--max-cost", "x", "--yes"],
                ["cron", "create", "every 1h", "hi", "--repeat", "x"],
                # a required argument left out, a choice argparse does not offer, an unknown verb or command
                ["sessions", "delete"],
                ["sessions", "rename", "some-id"],
                ["sessions", "export", "-", "--format", "pdf"],
                ["sessions", "export", "-", "--only", "everything"],
                ["sessions", "bogus"],
                ["cron", "create"],
                ["cron", "edit"],
                ["cron", "pause"],
                ["cron", "bogus"],
                ["bogus"],
                # a command's flag with no command; argparse's int on Unicode digits and underscores
                ["--dry-run"],
                ["sessions", "list", "--limit", "١٢"],
                ["sessions", "list", "--limit", "1_0"],
                ["sessions", "list", "--limit", "1__0"],
            )
        }
        for n in ("0", "-2", "1_0", "١٢"):
            hermes(home, "cron", "create", "every 1h", f"repeat {n}", "--repeat", n, check=False)
        jobs = json.loads((home / "cron" / "jobs.json").read_text())["jobs"]
        repeats = {j["prompt"].split()[1]: j["repeat"] for j in jobs}
    return {"codes": codes, "repeats": repeats}


def main():
    DEST.mkdir(parents=True, exist_ok=True)
    answers = {
        "upstream_commit": upstream_commit(),
        "memory": memory_cases(),
        "cron_status_summary": cron_status(),
        "sessions": sessions_cases(),
        "usage": usage_cases(),
    }
    (DEST / "answers.json").write_text(json.dumps(answers, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {DEST}")


if __name__ == "__main__":
    main()
