#!/usr/bin/env python3
"""Another process writing a home the way upstream does, for the bench's "list right after a write" (issue #22).

  python3 bench/upstream-writer.py STATE_DB SESSION_ID

Opens the home with upstream's `SessionDB`, creates SESSION_ID, prints `ready`; then for every stdin line
`append` appends one user message with `append_message` and prints {"t": epoch ms after the commit}.
"""
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
import hermes_state as hs  # noqa: E402

db = hs.SessionDB(Path(sys.argv[1]))
sid = sys.argv[2]
if db.get_session(sid) is None:
    db.create_session(sid, "cli")
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() != "append":
        continue
    db.append_message(sid, "user", f"bench message {time.time()}")
    print(json.dumps({"t": time.time() * 1000}), flush=True)
db.close()
