#!/usr/bin/env python3
"""How upstream cuts an oversized SOUL.md (agent/prompt_builder.py: load_soul_md, run at upstream commit
9a75ff049b020ab5b24f76892f50f59064811028): for files of several sizes, the model's context lengths its prompt builder
passes in, and config.yaml's context_file_max_chars, the limit it used and how many characters of the head and of the
tail it kept. The middle marker is upstream's prose and is not recorded: the script checks the result is exactly
head + marker + tail, and Caduceus writes its own marker.

Usage: /usr/bin/python3 scripts/golden/soul_truncate.py   (HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/soul-truncate/upstream.json; read by src-main/config/soul.test.ts.
"""
import logging
from pathlib import Path

from golden_setup import upstream_home, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "soul-truncate" / "upstream.json"
HOME = upstream_home("golden-soul-")
logging.disable(logging.WARNING)  # its truncation warning per case

from agent.model_metadata import get_model_context_length  # noqa: E402
from agent.prompt_builder import load_soul_md  # noqa: E402

# A model no table names, on a custom endpoint with nothing listening (port 9): every lookup misses.
UNKNOWN_MODEL_CONTEXT = get_model_context_length("scripted-unknown-model", "http://127.0.0.1:9/v1", "k", provider="custom")


def soul_text(size: int, astral: bool) -> str:
    """`size` code points of numbered lines (the test builds the same): an astral emoji per line when `astral`."""
    out, n = [], 0
    while sum(len(s) for s in out) < size:
        out.append(f"line {n} {'🙂' if astral else 'x'} persona rule\n")
        n += 1
    return "".join(out)[:size].strip() + "!"


# (size, astral, context_length, config.yaml's context_file_max_chars line or None)
CASES = [
    (19_999, False, None, None),
    (20_000, False, None, None),
    (20_001, False, None, None),
    (45_000, False, None, None),
    (45_000, False, 8_000, None),
    (45_000, False, 100_000, None),
    (45_000, False, 128_000, None),
    (45_000, False, 256_000, None),
    (600_000, False, 3_000_000, None),
    (45_000, False, 0, None),
    (30_000, True, None, None),
    (45_000, False, 256_000, "context_file_max_chars: 5000"),
    (45_000, False, None, "context_file_max_chars: 12345.9"),
    (45_000, False, None, "context_file_max_chars: 0"),
    (45_000, False, None, "context_file_max_chars: '5000'"),
    (45_000, False, None, "context_file_max_chars: 3"),
    (70_000, False, UNKNOWN_MODEL_CONTEXT, None),
]

cases = []
for size, astral, ctx, config in CASES:
    (HOME / "config.yaml").write_text((config or "") + "\n")
    text = soul_text(size, astral)
    (HOME / "SOUL.md").write_text(text, encoding="utf-8")
    got = load_soul_md(ctx)
    case = {"size": size, "astral": astral, "contextLength": ctx, "config": config, "length": len(text)}
    if got == text:
        case["cut"] = None
    else:
        marker_start = got.index("\n\n[...truncated SOUL.md: kept ")
        head = got[:marker_start]
        rest = got[marker_start:]
        marker_end = rest.index("]\n\n") + 3
        tail = rest[marker_end:]
        assert text.startswith(head) and text.endswith(tail), case
        kept = rest[len("\n\n[...truncated SOUL.md: kept "):].split(" ")[0]
        h, t = (int(x) for x in kept.split("+"))
        assert len(head) == h and (len(tail) == t or (t == 0 and tail == text)), case
        assert str(HOME / "SOUL.md") in rest[:marker_end], case
        case["cut"] = {"head": len(head), "tail": len(tail)}
    cases.append(case)

write_golden(OUT, "scripts/golden/soul_truncate.py", {"unknownModelContextLength": UNKNOWN_MODEL_CONTEXT, "cases": cases})
