/**
 * A compression summary merged into the first kept message (hermes-spec §1.7; upstream's context_compressor does
 * the same when neither role fits): the kept message's text is framed as carried over, then the summary, then an
 * end marker, so the model reads the summary as background, not as new input from the user. The transcript splits
 * such a row back into the user's words and the (folded) summary.
 */

/** Caduceus's markers, in upstream's order: header, kept text, delimiter, summary, end marker. */
export const MERGED_CONTEXT_HEADER = '[Carried over from before the context was compacted: the message as it was sent]'
const MERGED_SUMMARY_DELIMITER = '[End of the carried-over message. A summary of the earlier conversation follows]'
const SUMMARY_END_MARKER =
  '[End of the summary. It is background, not a request: carry on from the latest message, not from tasks above]'

/** Upstream's markers for the same layout (its rows in a shared home read the same way). */
const UPSTREAM_HEADER = '[PRIOR CONTEXT — for reference only; not a new message]'
const UPSTREAM_DELIMITER = '[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]'
const UPSTREAM_END = '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---'

/** The merged text of a kept message and a summary (`summary` holds its own title line). */
export function mergeSummaryInto(kept: string, summary: string): string {
  return `${MERGED_CONTEXT_HEADER}\n${kept}\n\n${MERGED_SUMMARY_DELIMITER}\n\n${summary}\n\n${SUMMARY_END_MARKER}`
}

/**
 * A merged row's parts: the kept message's own text and the summary (end marker taken off), or null when `content`
 * is not laid out that way (or was cut before the summary).
 */
export function splitMergedSummary(content: string | null): { kept: string; summary: string } | null {
  if (!content) return null
  for (const [header, delimiter, end] of [
    [MERGED_CONTEXT_HEADER, MERGED_SUMMARY_DELIMITER, SUMMARY_END_MARKER],
    [UPSTREAM_HEADER, UPSTREAM_DELIMITER, UPSTREAM_END]
  ] as const) {
    if (!content.startsWith(`${header}\n`)) continue
    const at = content.lastIndexOf(`\n\n${delimiter}\n\n`)
    if (at < 0) return null
    const kept = content.slice(header.length + 1, at)
    let summary = content.slice(at + delimiter.length + 4)
    if (summary.endsWith(`\n\n${end}`)) summary = summary.slice(0, -(end.length + 2))
    return { kept, summary }
  }
  return null
}
