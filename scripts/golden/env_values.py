#!/usr/bin/env python3
"""What upstream reads back from the .env lines Caduceus writes: for each tricky value, Caduceus's own writer
(src-main/secrets/env-file.ts updateEnvFile, run through node from this checkout) writes it, then upstream's two
readers read the file: python-dotenv's dotenv_values (which fills the agent's environment at start) and upstream's
own hermes_cli.config._parse_env_value (load_env). python-dotenv expands `${VAR}` whatever the quoting (upstream's
own writer has the same limit), so a value holding `${` cannot come back from it as written.

Usage: /usr/bin/python3 scripts/golden/env_values.py   (Debian's python3-dotenv; HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/env-values/cases.json: [{value, line, dotenv, upstream}], read by src-main/secrets/env-file.test.ts.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "env-values"
sys.path.insert(0, os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="golden-env-")
from dotenv import dotenv_values  # noqa: E402
from hermes_cli.config import _parse_env_value  # noqa: E402

VALUES = [
    "sk-plain-0123456789",
    "sk-ab$cd",
    "p${HOME}x",
    "$HOME",
    "with space inside",
    " leading and trailing ",
    "hash # inside",
    "#starts-with-hash",
    'double " quote',
    "single ' quote",
    "both ' and \" quotes",
    "back\\slash",
    "tab\there",
    "unicode-ключ-🔑",
    "equals=sign==",
    "",
    "dollar ' and ${HOME} with quote",
]

home = Path(tempfile.mkdtemp(prefix="golden-env-"))
env = home / ".env"
script = (
    "import { updateEnvFile } from './src-main/secrets/env-file.ts';"
    "const vals = JSON.parse(process.argv[1]);"
    "vals.forEach((v, i) => updateEnvFile(process.argv[2], `K${i}`, v));"
)
subprocess.run(
    ["node", "--import", "tsx", "--input-type=module", "-e", script, json.dumps(VALUES), str(env)],
    cwd=ROOT, check=True,
)
lines = env.read_text().splitlines()
dot = dotenv_values(env)
cases = []
for i, v in enumerate(VALUES):
    line = next(l for l in lines if l.startswith(f"K{i}="))
    cases.append({"value": v, "line": line, "dotenv": dot.get(f"K{i}"), "upstream": _parse_env_value(line.split("=", 1)[1])})
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({"cases": cases}, indent=1, ensure_ascii=False) + "\n")
bad = [c for c in cases if c["dotenv"] != c["value"] or c["upstream"] != c["value"]]
print(json.dumps(bad, ensure_ascii=False, indent=1))
