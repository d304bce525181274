/**
 * The text of a compression summary in a continuation (hermes-spec §1.7), as Caduceus writes it and as it reads back
 * its own and upstream's. A summary is a message of its own, or — when neither role fits beside the first kept
 * message (upstream's context_compressor does the same) — merged into that message. The transcript shows a merged
 * row as the message's own words and the (folded) summary; a later compression, Caduceus's or upstream's, must know
 * a summary from a turn so it folds it in instead of summarizing it as something the user said.
 */

/**
 * What a summary starts with. Upstream v21 tells a summary from a turn only by the text it starts with (a v21 home has
 * no `_compressed_summary` column, so nothing else survives a reload), matched against a fixed list of its own
 * openings. This one is the shortest it accepts (its legacy opening), and it is the only upstream text Caduceus writes:
 * everything after it is the summary itself. Upstream takes it off and keeps the rest as the summary it updates
 * (test/fixtures/upstream/compression-interop, scripts/golden/compression_interop.py).
 */
export const SUMMARY_MARKER = '[CONTEXT SUMMARY]:'

/** Ends the summary in a merged row, before the kept message's own words. */
const MERGED_SUMMARY_END = '[End of the summary: background, not a request. The conversation goes on below]'

/** Caduceus's earlier layouts (rows written before the marker above), still read back. */
const OLD_TITLE = '[Summary of the earlier conversation]'
const OLD_HEADER = '[Carried over from before the context was compacted: the message as it was sent]'
const OLD_DELIMITER = '[End of the carried-over message. A summary of the earlier conversation follows]'
const OLD_END =
  '[End of the summary. It is background, not a request: carry on from the latest message, not from tasks above]'

/** Upstream's markers for its merged layout and its summary's end (its rows in a shared home read the same way). */
const UPSTREAM_HEADER = '[PRIOR CONTEXT — for reference only; not a new message]'
const UPSTREAM_DELIMITER = '[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]'
const UPSTREAM_END = '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---'
/** Upstream's current and earlier summaries open with one bracketed line naming the compaction, then the summary. */
const UPSTREAM_BANNER = '[CONTEXT COMPACTION'

/** A summary message's text: the marker, then the summary. */
export function summaryMessageText(summary: string): string {
  return `${SUMMARY_MARKER}\n${summary}`
}

/**
 * The merged text of a summary and a kept message: the summary first (it tells of what came before), its end, then
 * the kept message's own words, last, as the message the model goes on from. Starting with the marker, the whole row
 * reads as a summary to upstream, as its own merged rows do; the kept words then ride in the summary it updates.
 */
export function mergeSummaryInto(kept: string, summary: string): string {
  return `${mergedSummaryHead(summary)}${kept}`
}

/** What precedes the kept message in a merged row (a multimodal message keeps its parts after it). */
export function mergedSummaryHead(summary: string): string {
  return `${summaryMessageText(summary)}\n\n${MERGED_SUMMARY_END}\n\n`
}

/**
 * A merged row's parts: the kept message's own text and the summary as shown (Caduceus's marker taken off; an
 * upstream summary keeps its opening), or null when `content` is not laid out that way (or was cut short).
 */
export function splitMergedSummary(content: string | null): { kept: string; summary: string } | null {
  if (!content) return null
  if (content.startsWith(`${SUMMARY_MARKER}\n`)) {
    const at = content.indexOf(`\n\n${MERGED_SUMMARY_END}\n\n`)
    if (at < 0) return null
    return {
      kept: content.slice(at + MERGED_SUMMARY_END.length + 4),
      summary: content.slice(SUMMARY_MARKER.length + 1, at)
    }
  }
  for (const [header, delimiter, end] of [
    [OLD_HEADER, OLD_DELIMITER, OLD_END],
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

/** The summary a standalone summary text holds, without its opening (and upstream's end line); null: not one. */
function summaryBody(text: string): string | null {
  const t = text.trimStart()
  let body: string
  if (t.startsWith(SUMMARY_MARKER)) body = t.slice(SUMMARY_MARKER.length)
  else if (t.startsWith(UPSTREAM_BANNER) || t.startsWith(OLD_TITLE)) {
    // the opening is one line; an upstream summary that is only its opening holds nothing
    const nl = t.indexOf('\n')
    body = nl < 0 ? '' : t.slice(nl + 1)
  } else return null
  body = body.trim()
  if (body.endsWith(UPSTREAM_END)) body = body.slice(0, -UPSTREAM_END.length).trimEnd()
  return body
}

/**
 * A message's text read as a compression summary, whoever wrote it: the summary, and the kept message's own words
 * when the summary was merged into one (null for a summary of its own); null when the text is not a summary.
 */
export function readSummary(content: string | null | undefined): { summary: string; kept: string | null } | null {
  if (!content) return null
  const merged = splitMergedSummary(content)
  if (merged) return { kept: merged.kept, summary: summaryBody(merged.summary) ?? merged.summary.trim() }
  const summary = summaryBody(content)
  return summary === null ? null : { summary, kept: null }
}
