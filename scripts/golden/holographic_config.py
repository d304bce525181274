#!/usr/bin/env python3
"""Which file upstream's holographic plugin opens for a `plugins.hermes-memory-store.db_path`, and how it takes a
setting it cannot convert: the plugin's own loader (`load_memory_provider('holographic')`, which reads config.yaml
with its own yaml.safe_load, no `${VAR}` expansion), then is_available() and initialize().

Usage: /usr/bin/python3 scripts/golden/holographic_config.py   (HERMES_UPSTREAM, default /work/upstream; numpy)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
Writes test/fixtures/upstream/holographic-config/upstream.json with the paths as <home> (HERMES_HOME), <user> (HOME)
and <cwd> (the folder upstream was started in), and for `~NAME/…` the login running the script as <login> and its
home from the password database as <login-home> (a folder made there for the case is removed again); read by
src-main/memory/providers/holographic/config-golden.test.ts.
"""
import json
import logging
import os
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "holographic-config"
sys.path.insert(0, UPSTREAM)
logging.disable(logging.CRITICAL)
BASE = Path(tempfile.mkdtemp(prefix="golden-holocfg-")).resolve()
HOME, USER, CWD = BASE / "home", BASE / "user", BASE / "cwd"
for d in (HOME, USER, CWD):
    d.mkdir()
os.environ["HERMES_HOME"] = str(HOME)
os.environ["HOME"] = str(USER)
os.chdir(CWD)
LOGIN = pwd.getpwuid(os.getuid())
# A folder of its own under the login's real home, removed after the case (upstream's store makes its parent).
LOGIN_DIR = f".cad-holo-golden-{os.getpid()}"

SECTION = "memory:\n  provider: holographic\nplugins:\n  hermes-memory-store:\n"
CASES = [
    ("no db_path", ""),
    ("$HERMES_HOME", "    db_path: $HERMES_HOME/a.db\n"),
    ("${HERMES_HOME}", "    db_path: ${HERMES_HOME}/b.db\n"),
    ("${HOME}", "    db_path: ${HOME}/c.db\n"),
    ("$HOME", "    db_path: $HOME/d.db\n"),
    ("~", "    db_path: ~/e.db\n"),
    ("~NAME", f"    db_path: ~{LOGIN.pw_name}/{LOGIN_DIR}/h.db\n"),
    ("~NAME unknown", "    db_path: ~cad-no-such-user-x/i.db\n"),
    ("relative", "    db_path: stores/f.db\n"),
    ("absolute", f"    db_path: {BASE}/abs/g.db\n"),
    ("null", "    db_path:\n"),
    ("number", "    db_path: 5\n"),
    ("hrr_dim not an int", "    hrr_dim: abc\n"),
    ("hrr_dim '512.0'", "    hrr_dim: '512.0'\n"),
    ("default_trust not a float", "    default_trust: high\n"),
    ("min_trust_threshold not a float", "    min_trust_threshold: low\n"),
]


def shown(p):
    s = str(p).replace(f"~{LOGIN.pw_name}/{LOGIN_DIR}/", "~<login>/<dir>/")
    s = s.replace(f"{LOGIN.pw_dir.rstrip('/')}/{LOGIN_DIR}/", "<login-home>/<dir>/")
    for real, tag in ((str(HOME), "<home>"), (str(USER), "<user>"), (str(CWD), "<cwd>"), (str(BASE), "<base>")):
        s = s.replace(real, tag)
    return s


def run(name, body):
    (HOME / "config.yaml").write_text(SECTION + body, encoding="utf-8")
    from plugins.memory import load_memory_provider

    out = {"name": name, "config": shown(SECTION + body)}
    provider = load_memory_provider("holographic")
    if provider is None:
        return {**out, "loaded": False}
    out.update(loaded=True, available=provider.is_available())
    try:
        provider.initialize("golden")
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return {**out, "initialized": False, "error": f"{type(e).__name__}: {shown(e)}"}
    db = provider._store.db_path
    key = provider._store._key
    provider.shutdown()
    return {**out, "initialized": True, "db_path": shown(db), "opened": shown(key), "absolute": Path(db).is_absolute()}


result = {"cases": [run(name, body) for name, body in CASES]}
shutil.rmtree(Path(LOGIN.pw_dir) / LOGIN_DIR, ignore_errors=True)
os.chdir("/")
shutil.rmtree(BASE, ignore_errors=True)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "upstream.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
print(json.dumps(result, indent=1))
