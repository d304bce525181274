#!/usr/bin/env python3
"""Upstream's own session list on a home, for the bench's side-by-side ratio (issue #22).

  python3 bench/upstream-list.py STATE_DB [RUNS]   (imports hermes_state from $HERMES_UPSTREAM, default /work/upstream)

Times `SessionDB(read_only=True).list_sessions_rich(order_by_last_active=True, limit=100)` — the page upstream's
dashboard shows — and prints {"p50": ms, "p95": ms} (nearest rank), or {"error": "..."}.
"""
import json
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
try:
    import hermes_state as hs

    db = hs.SessionDB(Path(sys.argv[1]), read_only=True)
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    db.list_sessions_rich(order_by_last_active=True, limit=100)
    xs = []
    for _ in range(runs):
        t = time.perf_counter()
        db.list_sessions_rich(order_by_last_active=True, limit=100)
        xs.append((time.perf_counter() - t) * 1000)
    xs.sort()
    rank = lambda p: xs[max(0, math.ceil(p / 100 * len(xs)) - 1)]
    print(json.dumps({"p50": round(rank(50), 3), "p95": round(rank(95), 3)}))
except Exception as e:  # noqa: BLE001 - the bench reports why instead of failing
    print(json.dumps({"error": f"{type(e).__name__}: {e}"[:300]}))
