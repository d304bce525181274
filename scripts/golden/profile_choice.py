#!/usr/bin/env python3
"""Which profile upstream's own CLI acts on when no `-p/--profile` names one: the one HERMES_HOME points into
(`<root>/profiles/<name>`, whatever the root's `active_profile` says), else the one the root's `active_profile` file
names (HERMES_HOME set to the root, or unset), else the root's own. An `active_profile` naming a profile that does
not exist stops the CLI with an error; a named profile never falls back to the default one.

Needs upstream's CLI imports, from Debian: apt-get install python3-dotenv python3-yaml python3-rich
  /usr/bin/python3 scripts/golden/profile_choice.py        # HERMES_UPSTREAM defaults to /work/upstream

Reads test/fixtures/upstream/fidelity/home (scripts/golden/fidelity.py: profiles default and work) and writes
profile-choice.json next to it. Each case runs on its own copy of that home, with an empty profile folder `spare`
added (as `hermes profile create` leaves one before its first chat), `active_profile` written as upstream's
`hermes profile use` writes it (the name and a newline) and HERMES_HOME either the root or a profile folder:
  list    the ids `hermes sessions list --limit 50` prints (the terminal CLI's table, last column)
  export  the ids `hermes sessions export OUT` writes (every session of the profile it acts on)
  prune   the ids `hermes sessions prune --dry-run` would delete there
  code / error  the exit code and, on failure, the first line of stderr (the copy's path reads ROOT)
"""
import json
import shutil
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "test" / "fixtures" / "upstream" / "fidelity"

# (active_profile file content or None, HERMES_HOME relative to the root, extra argv before the command)
CASES = [
    (None, ".", []),
    ("work\n", ".", []),
    ("work\n", ".", ["-p", "default"]),
    ("Work\n", ".", []),
    ("default\n", ".", []),
    (None, "profiles/work", []),
    ("spare\n", "profiles/work", []),
    ("spare\n", ".", []),
    ("ghost\n", ".", []),
]


def listed(out):
    lines = out.splitlines()
    if not lines or lines[0].strip() == "No sessions found.":
        return []
    if not lines[0].startswith(("Title", "Preview")) or not lines[1].startswith("─"):
        raise SystemExit(f"unexpected list output:\n{out}")
    return [line.split()[-1] for line in lines[2:] if line.strip()]


def run_case(active, hermes_home, pre):
    root = Path(tempfile.mkdtemp(prefix="golden-profile-"))
    shutil.copytree(FIDELITY / "home", root, dirs_exist_ok=True)
    (root / "profiles" / "spare").mkdir()
    if active is not None:
        (root / "active_profile").write_text(active)
    home = root / hermes_home
    case = {"active_profile": active, "hermes_home": hermes_home, "argv": pre}
    listing = hermes(home, *pre, "sessions", "list", "--limit", "50", check=False)
    case["code"] = listing.returncode
    if listing.returncode != 0:
        case["error"] = (listing.stderr.strip().splitlines() or [""])[0].replace(str(root), "ROOT")
    else:
        case["list"] = listed(listing.stdout)
        out = Path(tempfile.mkdtemp(prefix="golden-profile-out-")) / "export.jsonl"
        hermes(home, *pre, "sessions", "export", str(out))
        case["export"] = [json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()]
        shutil.rmtree(out.parent)
        # the ids `hermes sessions prune --dry-run` would delete (no filter: ended, started over 90 days ago)
        dry = hermes(home, *pre, "sessions", "prune", "--dry-run").stdout
        case["prune"] = [line.split()[0] for line in dry.splitlines() if line.startswith("  ")]
    shutil.rmtree(root)
    return case


def main():
    cases = [run_case(*c) for c in CASES]
    out = {"upstream_commit": COMMIT, "cases": cases}
    (FIDELITY / "profile-choice.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for c in cases:
        print(c)


if __name__ == "__main__":
    main()
