import { showControls } from '@shared/contract/control-chars'
import { relativeTime } from './format'

/** How much of a first message stands in for a title. */
export const PREVIEW_CHARS = 60

export interface Labelled {
  title?: string | null
  /** First user message (sessions.list/get `preview`). */
  preview?: string | null
  /** When it happened (epoch seconds): last activity, start, or a search hit's time. */
  at?: number | null
}

/**
 * The one name every page shows for a session: its title; else its first user message, whitespace folded and
 * cut at a word; else "Untitled session · 3d ago". Never the raw id (that stays a tooltip). A control character in
 * either (upstream's preview keeps a colour sequence's ESC) reads as its picture, not as an empty box.
 */
export function sessionLabel(s: Labelled, nowMs = Date.now()): string {
  const title = s.title && showControls(s.title).trim()
  if (title) return title
  const preview = s.preview && showControls(s.preview).replace(/\s+/g, ' ').trim()
  if (preview) return truncate(preview, PREVIEW_CHARS)
  return s.at != null && Number.isFinite(s.at) ? `Untitled session · ${relativeTime(s.at, nowMs)}` : 'Untitled session'
}

/** Cut at the last space before `n` (a hard cut when there is none), with an ellipsis. Surrogate pairs stay whole. */
function truncate(text: string, n: number): string {
  const chars = [...text]
  if (chars.length <= n) return text
  const cut = chars.slice(0, n - 1).join('')
  const space = cut.lastIndexOf(' ')
  return `${(space > n / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}
