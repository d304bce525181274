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
/**
 * Upstream's summaries other than the legacy marker open with one line whose bracketed head names the compaction, then
 * the summary: its current and every earlier handoff text v21 still recognises head with the "— REFERENCE ONLY" form,
 * an older release's with the bare one (a home it wrote keeps them), and upstream's own dashboard accepts the ASCII
 * hyphen form too. Exact heads, so a message that merely talks about a compaction is not one.
 */
const UPSTREAM_BANNERS = [
  '[CONTEXT COMPACTION — REFERENCE ONLY]',
  '[CONTEXT COMPACTION - REFERENCE ONLY]',
  '[CONTEXT COMPACTION]'
] as const
const opensWithBanner = (text: string) => UPSTREAM_BANNERS.some((b) => text.startsWith(b))

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
  const layout = mergedLayoutOf(content)
  if (!layout) return null
  // at the first split line, as upstream parts its merged rows (and as a page's cut row is read: read-message-text.ts)
  const at = content.indexOf(layout.split)
  if (at < 0) return null
  const first = content.slice(layout.opening.length, at)
  const second = content.slice(at + layout.split.length)
  if (layout.keptFirst) {
    const end = `\n\n${layout.end}`
    return { kept: first, summary: second.endsWith(end) ? second.slice(0, -end.length) : second }
  }
  // An earlier upstream merged the other way round (no opening of its own: its summary opens with the banner), and
  // says so only when kept words follow its end line.
  if (!layout.opening) return second.trim() ? { kept: second, summary: first.trimStart() } : null
  return { kept: second, summary: first }
}

/**
 * How a merged row opening with `head` is laid out, for a reader holding only its start (a transcript page's cut):
 * what opens it, the line that parts the summary from the kept words, which of the two comes first and, kept words
 * first, the end line that may close the summary. splitMergedSummary parts a whole row by it; null when no merged
 * layout opens so.
 */
export function mergedLayoutOf(
  head: string
): { opening: string; split: string; keptFirst: boolean; end?: string } | null {
  if (head.startsWith(`${SUMMARY_MARKER}\n`))
    return { opening: `${SUMMARY_MARKER}\n`, split: `\n\n${MERGED_SUMMARY_END}\n\n`, keptFirst: false }
  for (const [header, delimiter, end] of [
    [OLD_HEADER, OLD_DELIMITER, OLD_END],
    [UPSTREAM_HEADER, UPSTREAM_DELIMITER, UPSTREAM_END]
  ] as const)
    if (head.startsWith(`${header}\n`))
      return { opening: `${header}\n`, split: `\n\n${delimiter}\n\n`, keptFirst: true, end }
  if (opensWithBanner(head.trimStart())) return { opening: '', split: `\n\n${UPSTREAM_END}\n\n`, keptFirst: false }
  return null
}

/** The summary a standalone summary text holds, without its opening (and upstream's end line); null: not one. */
function summaryBody(text: string): string | null {
  const t = text.trimStart()
  let body: string
  if (t.startsWith(SUMMARY_MARKER)) body = t.slice(SUMMARY_MARKER.length)
  else if (opensWithBanner(t) || t.startsWith(OLD_TITLE)) {
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
 * when the summary was merged into one (null for a summary of its own); null when the text is not a summary. Only the
 * exact openings the two programs write count (Caduceus's marker and earlier title, upstream's banners and legacy
 * marker, the merged layouts): words a user types about "the earlier conversation" are that user's words.
 */
function readSummary(content: string | null | undefined): { summary: string; kept: string | null } | null {
  if (!content) return null
  const merged = splitMergedSummary(content)
  if (merged) return { kept: merged.kept, summary: summaryBody(merged.summary) ?? merged.summary.trim() }
  const summary = summaryBody(content)
  return summary === null ? null : { summary, kept: null }
}

/**
 * A stored row read as a compression summary: the one rule every reading of a session shares — the transcript's fold
 * (notice-rows.ts), `sessions show` and the exports, turn grouping, the chain view's head copies (chain-carried.ts) and
 * a later compression's transcript. Both programs write a summary as a user or assistant message (upstream picks the
 * role that keeps the turns alternating; Caduceus's is a user one, or merged), so a tool result or any other row that
 * happens to open with a marker is what its role says it is.
 *
 * `flagged`: the row's `_compressed_summary` column where the home has one (upstream v31; both programs set it on the
 * summaries they write there). Set, it is the authority: the row is a summary whatever its text opens with, so an
 * opening a later upstream writes is still one (merged, if its text is laid out so). Absent, NULL or 0, the openings
 * decide — a home an older writer shares leaves 0 on the summaries it writes.
 */
export function rowSummary(
  role: string,
  content: string | null | undefined,
  flagged?: boolean | number | null
): { summary: string; kept: string | null } | null {
  if (role !== 'user' && role !== 'assistant') return null
  const read = readSummary(content)
  return read ?? (flagged === true || flagged === 1 ? { summary: (content ?? '').trim(), kept: null } : null)
}
