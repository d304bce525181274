"""What the golden scripts share: where upstream's checkout is, the commit it is at, and running upstream's real
`hermes` CLI (hermes_cli/main.py) on a home with the system Python, as a user would run it.

Imported by the scripts next to it (they run as `/usr/bin/python3 scripts/golden/<name>.py`, so this folder is on
sys.path); its own bytecode cache, if Python writes one, is ignored by git (.gitignore).
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
DEFAULT_COMMIT = "9a75ff049b020ab5b24f76892f50f59064811028"

_CLI = (
    "import sys; sys.path.insert(0, sys.argv[1]); sys.argv = ['hermes', *sys.argv[2:]]\n"
    "from hermes_cli.main import main; main()"
)


def upstream_commit() -> str:
    """HERMES_UPSTREAM_COMMIT, else the checkout's commit, else the one these goldens were recorded from."""
    if os.environ.get("HERMES_UPSTREAM_COMMIT"):
        return os.environ["HERMES_UPSTREAM_COMMIT"]
    try:
        out = subprocess.run(["git", "-C", UPSTREAM, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        out = ""
    return out or DEFAULT_COMMIT


def hermes(home, *args, check=True, utc=True):
    """`hermes <args>` with HERMES_HOME=home (and TZ=UTC unless told otherwise): the finished process."""
    env = {**os.environ, "HERMES_HOME": str(home)}
    if utc:
        env["TZ"] = "UTC"
    return subprocess.run(
        ["/usr/bin/python3", "-c", _CLI, UPSTREAM, *[str(a) for a in args]],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
    )
