#!/usr/bin/env python3
"""Golden: which message openings upstream takes for a compression summary, and the summary it reads out of each.

Upstream v21 knows a summary in a stored conversation only by the text it starts with (its `_compressed_summary` flag
lives in memory, and a v21 home has no column for it). This records, for a table of texts, upstream's own verdict
(ContextCompressor._is_context_summary_content) and the summary body it carries forward (_strip_summary_prefix):

upstream   the texts upstream's compressor writes, built from its module's own constants the way compress() lays them
           out: its current handoff opening and every earlier one it still lists, each as a standalone row (the
           opening, the summary, its end line); the legacy marker; the merged row (the kept message framed, then the
           summary); and the merged row an earlier release wrote (the summary and its end line first, the kept words
           after it, the order upstream's own tests name as the old one).
other      texts no v21 compressor writes, upstream's verdict recorded all the same: an older release's bare
           "[CONTEXT COMPACTION]" head (our words after it), and what a user might type that reads like a summary.

Output: test/fixtures/upstream/summary-openings/golden.json (the upstream commit and the cases).
Run: /usr/bin/python3 scripts/golden/summary_openings.py
"""
import json
import sys
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit

sys.path.insert(0, UPSTREAM)
from agent import context_compressor as cc  # noqa: E402
from agent.context_compressor import ContextCompressor  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "summary-openings"
BODY = "## Goal\nPlan the trip.\n\n## Done\nFlights booked."
KEPT = "and the hotel?"


def upstream_cases():
    end = cc._SUMMARY_END_MARKER
    current = ContextCompressor._with_summary_prefix(BODY)
    cases = [{"name": "current opening, standalone", "text": current + "\n\n" + end}]
    for i, prefix in enumerate(cc._HISTORICAL_SUMMARY_PREFIXES):
        cases.append({"name": f"earlier opening {i + 1}, standalone", "text": prefix + "\n" + BODY + "\n\n" + end})
    cases.append({"name": "legacy marker", "text": cc.LEGACY_SUMMARY_PREFIX + " " + BODY})
    cases.append({
        "name": "merged into the kept message",
        "kept": KEPT,
        "text": cc._MERGED_PRIOR_CONTEXT_HEADER + "\n" + KEPT + "\n\n" + cc._MERGED_SUMMARY_DELIMITER + "\n\n"
        + current + "\n\n" + end,
    })
    cases.append({
        "name": "merged by an earlier release (summary first)",
        "kept": KEPT,
        "text": current + "\n\n" + end + "\n\n" + KEPT,
    })
    return cases


OTHER = [
    # what an older release's summaries open with (our words after the head); no v21 compressor writes it
    {"name": "older release's bare head", "older_upstream": True,
     "text": "[CONTEXT COMPACTION] Earlier turns, summarized:\n" + BODY},
    # a user's own words that read like a summary
    {"name": "prose: summary of the earlier conversation",
     "text": "Summary of the earlier conversation: we picked Lisbon. Now, which hotel?"},
    {"name": "prose: summary of previous conversation", "text": "summary of previous conversation - see above"},
    {"name": "prose: context summary", "text": "Context summary: I am moving to Porto in May."},
    {"name": "prose: context compaction", "text": "Context compaction keeps failing for me, why?"},
    {"name": "prose: compacted context", "text": "compacted context is confusing the model"},
    {"name": "prose: bracketed, lower case", "text": "[context summary]: my notes from yesterday"},
    {"name": "prose: bracketed title", "text": "[Summary of the earlier conversation: mine]"},
    {"name": "prose: marker inside", "text": "please explain what [CONTEXT SUMMARY]: means"},
    {"name": "prose: marker without its colon", "text": "[CONTEXT SUMMARY] is what I call my notes"},
    {"name": "prose: another bracketed head", "text": "[CONTEXT COMPACTION NOTES] from my own notebook"},
]


def verdict(case):
    text = case["text"]
    return {
        **case,
        "upstream_is_summary": ContextCompressor._is_context_summary_content(text),
        "upstream_body": ContextCompressor._strip_summary_prefix(text),
    }


def main():
    golden = {
        "upstream_commit": upstream_commit(),
        "body": BODY,
        "upstream": [verdict(c) for c in upstream_cases()],
        "other": [verdict(c) for c in OTHER],
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "golden.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
