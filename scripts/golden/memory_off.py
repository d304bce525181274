#!/usr/bin/env python3
"""What upstream's own `hermes memory off` leaves in config.yaml: the memory section as its own yaml.safe_load reads
the file back, and the provider its config loader (hermes_cli.config.load_config) selects, for a file that names a
provider, one whose memory section has no provider key, and one with no memory section.

Usage: /usr/bin/python3 scripts/golden/memory_off.py   (HERMES_UPSTREAM, default /work/upstream)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
Writes test/fixtures/upstream/memory-off/upstream.json; read by test/cli-more-verbs.test.ts.
"""
import json
import subprocess
import tempfile
from pathlib import Path

import yaml

from upstream_cli import UPSTREAM, hermes, upstream_commit

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "memory-off"
CASES = [
    ("names a provider", "# my settings\nmodel:\n  default: some/model  # pinned\nmemory:\n  provider: holographic\n"
     "  memory_char_limit: 3000\n"),
    ("memory section without provider", "memory:\n  memory_char_limit: 3000\n"),
    ("no memory section", "model:\n  default: some/model\n"),
]
LOADER = (
    "import sys; sys.path.insert(0, sys.argv[1])\n"
    "from hermes_cli.config import load_config\n"
    "print(repr(load_config().get('memory', {}).get('provider')))"
)


def run(name, start):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "config.yaml").write_text(start, encoding="utf-8")
        p = hermes(home, "memory", "off")
        doc = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8")) or {}
        loaded = subprocess.run(["/usr/bin/python3", "-c", LOADER, UPSTREAM], env={"HERMES_HOME": str(home),
                                "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=True).stdout.strip()
        memory = doc.get("memory")
        return {
            "name": name,
            "start": start,
            "code": p.returncode,
            "memory_section": memory,
            "has_provider_key": isinstance(memory, dict) and "provider" in memory,
            "loaded_provider": eval(loaded),  # a repr of a str printed by LOADER
        }


result = {"commit": upstream_commit(), "cases": [run(name, start) for name, start in CASES]}
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "upstream.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
print(json.dumps(result, indent=1))
