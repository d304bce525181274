#!/usr/bin/env python3
"""What upstream's own CLI, `hermes sessions prune|archive ... --dry-run`, selects on the fidelity golden home.

`SessionDB.prune_sessions` keeps a 90-day cutoff unless told otherwise; the CLI does not: a bare prune means
"older than 90 days", but any filter (--source, --title, ...) drops that cutoff, so `prune --source cli` selects
every ended cli session whatever its age. That rule lives in hermes_cli/main.py, so this runs the real CLI.

Needs upstream's CLI imports, from Debian: apt-get install python3-dotenv python3-yaml python3-rich
  /usr/bin/python3 scripts/golden/prune_cli.py        # HERMES_UPSTREAM defaults to /work/upstream

Reads test/fixtures/upstream/fidelity/home/state.db (scripts/golden/fidelity.py) and writes prune-cli.json next to
it: per flag set, the ids the dry run lists (oldest first), or "refused"; and, for a few archive flag sets, every id a
real `--yes` run leaves archived. Each run gets its own copy of the home.
"""
import json
import re
import shutil
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "test" / "fixtures" / "upstream" / "fidelity"

CASES = [
    [],
    ["--source", "cli"],
    ["--source", "discord"],
    ["--title", "plan"],
    ["--min-messages", "3"],
    ["--max-messages", "1"],
    ["--model", "gpt"],
    ["--include-archived"],
    ["--source", "cli", "--include-archived"],
    ["--newer-than", "1w"],
    ["--older-than", "30", "--source", "cli"],
    ["--after", "2017-01-01", "--before", "2018-01-01"],
]
# `hermes sessions archive` takes the same filters: no implicit cutoff, and a bare one is refused.
ARCHIVE_CASES = [
    [],
    ["--min-messages", "0"],
    ["--source", "cli"],
    ["--title", "plan"],
    ["--older-than", "30"],
    ["--newer-than", "1w"],
    ["--min-messages", "3"],
]
ROW = re.compile(r"^  (\S+)  ")


def dry_run(flags, action="prune"):
    home = Path(tempfile.mkdtemp(prefix="golden-prune-"))
    shutil.copy(FIDELITY / "home" / "state.db", home / "state.db")
    out = hermes(home, "sessions", action, *flags, "--dry-run", utc=False).stdout
    shutil.rmtree(home)
    if "No sessions match" in out:
        return []
    if "Refusing to archive" in out:
        return "refused"
    if "Dry run" not in out:
        raise SystemExit(f"unexpected output for {flags}:\n{out}")
    return [m.group(1) for line in out.splitlines() if (m := ROW.match(line))]


def archived_after(flags):
    """What a real `hermes sessions archive FLAGS --yes` leaves archived (each match's compression lineage too)."""
    home = Path(tempfile.mkdtemp(prefix="golden-archive-"))
    shutil.copy(FIDELITY / "home" / "state.db", home / "state.db")
    hermes(home, "sessions", "archive", *flags, "--yes", utc=False)
    import sqlite3

    con = sqlite3.connect(home / "state.db")
    ids = [r[0] for r in con.execute("SELECT id FROM sessions WHERE archived = 1 ORDER BY id")]
    con.close()
    shutil.rmtree(home)
    return ids


ARCHIVE_WRITES = [["--title", "#3"], ["--title", "plan"], ["--source", "discord"]]


def main():
    cases = [{"flags": flags, "candidates": dry_run(flags)} for flags in CASES]
    archive = [{"flags": flags, "candidates": dry_run(flags, "archive")} for flags in ARCHIVE_CASES]
    written = [{"flags": flags, "archived": archived_after(flags)} for flags in ARCHIVE_WRITES]
    out = {"upstream_commit": COMMIT, "cases": cases, "archive_cases": archive, "archive_written": written}
    (FIDELITY / "prune-cli.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for c in cases + archive:
        print(len(c["candidates"]), " ".join(c["flags"]) or "(bare)")


if __name__ == "__main__":
    main()
