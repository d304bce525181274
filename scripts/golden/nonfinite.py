#!/usr/bin/env python3
"""Non-finite numbers in upstream's JSONL, both ways, from upstream's own code.

Upstream's import keeps a time it reads as infinite (`float("inf")`, or a JSON `Infinity` token, which Python's json
reads) as stored, and its CLI export writes lines with `json.dumps` (allow_nan on): such a value comes out as a bare
`Infinity` / `-Infinity` token, not `null`.

  /usr/bin/python3 scripts/golden/nonfinite.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/nonfinite/upstream.json:
  input    the JSONL lines given to upstream's import (Python's json tokens Infinity / -Infinity in numeric fields)
  stored   what import_sessions stored for them: each session's started_at / ended_at and its messages' timestamps,
           as Python's repr of the float ('inf', '-inf', or the number)
  export   the lines `hermes sessions export -` wrote for that home, as text (every line, in its order)
  commit   the upstream commit
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, hermes, upstream_commit

COMMIT = upstream_commit()
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "nonfinite"
T = 1_600_000_000.0

INPUT = [
    '{"id": "far", "source": "cli", "started_at": %r, "ended_at": Infinity, "messages": ['
    '{"role": "user", "content": "to infinity", "timestamp": Infinity}, '
    '{"role": "assistant", "content": "and before", "timestamp": -Infinity}]}' % T,
    '{"id": "near", "source": "cli", "started_at": %r, "messages": ['
    '{"role": "user", "content": "plain", "timestamp": %r}]}' % (T + 10, T + 11),
]


def main():
    home = Path(tempfile.mkdtemp(prefix="golden-nonfinite-"))
    os.environ["HERMES_HOME"] = str(home)
    sys.path.insert(0, UPSTREAM)
    import hermes_state as hs  # noqa: E402

    db = hs.SessionDB(db_path=home / "state.db")
    result = db.import_sessions([json.loads(line) for line in INPUT])
    db.close()
    con = sqlite3.connect(home / "state.db")
    stored = {}
    for sid, started, ended in con.execute("SELECT id, started_at, ended_at FROM sessions ORDER BY id"):
        stamps = [repr(t) for (t,) in con.execute("SELECT timestamp FROM messages WHERE session_id = ? ORDER BY id", (sid,))]
        stored[sid] = {"started_at": repr(started), "ended_at": repr(ended), "timestamps": stamps}
    con.close()
    out = hermes(home, "sessions", "export", "-")
    OUT.mkdir(parents=True, exist_ok=True)
    golden = {
        "commit": COMMIT,
        "input": INPUT,
        "import_result": {k: v for k, v in result.items() if k != "errors"} if isinstance(result, dict) else repr(result),
        "stored": stored,
        "export": [line for line in out.stdout.splitlines() if line.strip()],
    }
    (OUT / "upstream.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
