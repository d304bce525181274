#!/usr/bin/env python3
"""The exact text upstream's `hermes sessions export ... -` writes on the fidelity golden home (upstream commit
9a75ff049b020ab5b24f76892f50f59064811028): `json.dumps(record, ensure_ascii=False)` per line, its default `, ` / `: `
separators, floats as Python writes them (a REAL timestamp `1500000000.0`), keys in its order (`last_active` before
`messages`). export_cli.py records what those lines hold; this records the bytes, for a byte-for-byte comparison.

  /usr/bin/python3 scripts/golden/export_bytes.py      # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/fidelity/export-bytes.json: {upstream_commit, cases: [{profile, flags, text}]}.
"""
import json
import shutil
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
FIDELITY = ROOT / "test" / "fixtures" / "upstream" / "fidelity"

CASES = [
    ("default", ["-"]),
    ("work", ["-"]),
    ("default", ["--source", "cli", "-"]),
    ("default", ["--only", "user-prompts", "-"]),
]


def run_case(profile, flags):
    home = Path(tempfile.mkdtemp(prefix="golden-export-bytes-"))
    shutil.copytree(FIDELITY / "home", home, dirs_exist_ok=True)
    hermes_home = home if profile == "default" else home / "profiles" / profile
    p = hermes(hermes_home, "sessions", "export", *flags)
    shutil.rmtree(home)
    return {"profile": profile, "flags": flags, "text": p.stdout}


def main():
    cases = [run_case(profile, flags) for profile, flags in CASES]
    for c in cases:
        print(c["profile"], " ".join(c["flags"]), len(c["text"].splitlines()), "lines")
    out = {"upstream_commit": upstream_commit(), "cases": cases}
    (FIDELITY / "export-bytes.json").write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
