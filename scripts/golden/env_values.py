#!/usr/bin/env python3
"""What upstream reads back from the .env lines Caduceus writes: for each tricky value, Caduceus's own writer
(src-main/secrets/env-file.ts updateEnvFile, run through node from this checkout) writes it, then upstream's two
readers read the file: python-dotenv's dotenv_values (which fills the agent's environment at start) and upstream's
own hermes_cli.config._parse_env_value (load_env). python-dotenv expands `${VAR}` whatever the quoting (upstream's
own writer has the same limit), so a value holding `${` cannot come back from it as written.

Then what upstream's agent actually reads from a profile's .env as written by hand: each READS text is put in a
fresh home and upstream's own load path runs on it in a clean child process (hermes_cli.env_loader.load_hermes_dotenv:
its line sanitizer, then python-dotenv's load_dotenv with override and `${VAR}` interpolation); the variables it set
are recorded. GOLDEN_SHELL_VAR stands for a variable of the environment the agent was started in. python-dotenv's
parser and interpolation are the same in Debian's 0.21 and upstream's pinned 1.2.2 (compared by source).

Usage: /usr/bin/python3 scripts/golden/env_values.py   (Debian's python3-dotenv; HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/env-values/cases.json: {cases: [{value, line, dotenv, upstream}], reads: [{name, text,
env}], upstream_commit}, read by src-main/secrets/env-file.test.ts.
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
READS = [
    ("expand earlier key, unquoted", "A=plain\nJ=${A}x\n"),
    ("expand in double quotes", 'A=plain\nK="${A}y"\n'),
    ("expand in single quotes", "A=plain\nL='${A}z'\n"),
    ("expand default and unknown", "D=${NOPE:-fallback}|${NOPE}|${A:-unused}\nA=later\n"),
    ("expand from the environment; the file wins", "S=${GOLDEN_SHELL_VAR}\nGOLDEN_SHELL_VAR=from-file\nT=${GOLDEN_SHELL_VAR}\n"),
    ("bare $VAR stays", "A=plain\nB=$A-${A}\n"),
    ("multi-line double quotes", 'F="multi\nline two\n  indented"\nG=after\n'),
    ("multi-line single quotes", "F='one\ntwo'\nG=after\n"),
    ("escapes", 'I="esc\\"q\\\\n\\t|\\n"\nJ=\'s\\\'q\\\\\\n\'\n'),
    ("unterminated quote skips its line", 'N="unterminated\nO=ok\n'),
    ("quote closing on a later line followed by text", 'N="open\nO=a"b\nP=ok\n'),
    ("text after a closing quote", 'P="x" trailing\nQ=ok\n'),
    ("comments, export, spacing", "# c\nexport G=exp\nH = spaced \nE=val#hash\nD=val # comment\nM=\nBARE\n"),
    ("crlf", "A=one\r\nB=\"two\"\r\n"),
]
probe = """
import json, os, sys
home, upstream = sys.argv[1], sys.argv[2]
sys.path.insert(0, upstream)
before = dict(os.environ)
from hermes_cli.env_loader import load_hermes_dotenv
load_hermes_dotenv(hermes_home=home)
print(json.dumps({k: v for k, v in os.environ.items() if before.get(k) != v}))
"""
reads = []
for name, text in READS:
    h = Path(tempfile.mkdtemp(prefix="golden-env-read-"))
    (h / ".env").write_bytes(text.encode())
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(h), "HERMES_HOME": str(h),
             "GOLDEN_SHELL_VAR": "from-shell"}
    out = subprocess.run([sys.executable, "-c", probe, str(h), os.environ.get("HERMES_UPSTREAM", "/work/upstream")],
                         capture_output=True, text=True, env=clean, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    reads.append({"name": name, "text": text, "env": got})
commit = subprocess.run(["git", "-C", os.environ.get("HERMES_UPSTREAM", "/work/upstream"), "rev-parse", "HEAD"],
                        capture_output=True, text=True).stdout.strip() or "9a75ff049b020ab5b24f76892f50f59064811028"
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(
    json.dumps({"upstream_commit": commit, "cases": cases, "reads": reads}, indent=1, ensure_ascii=False) + "\n"
)
for r in reads:
    print(r["name"], "->", json.dumps(r["env"], ensure_ascii=False))
bad = [c for c in cases if c["dotenv"] != c["value"] or c["upstream"] != c["value"]]
print(json.dumps(bad, ensure_ascii=False, indent=1))
