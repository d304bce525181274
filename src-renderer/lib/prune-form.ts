/**
 * The Prune dialog's fields as one `sessions.prune` filter, read the way `caduceus sessions prune` reads its flags:
 * each field is a flag, an empty field is a flag left out. So an empty age with no other filter is a bare prune
 * (older than `DEFAULT_PRUNE_DAYS`) and an empty age beside any filter is no age bound (upstream's CLI rule,
 * `isBarePrune`). Time bounds become absolute epochs when the preview is asked for, and the confirm sends that same
 * filter, so both see one window.
 */
import { DEFAULT_PRUNE_DAYS, isBarePrune, type PruneFilterInput } from '@shared/contract'

export type ArchivedMode = 'keep' | 'include' | 'only'

export interface PruneFields {
  days: string
  after: string
  before: string
  source: string
  title: string
  model: string
  provider: string
  endReason: string
  cwd: string
  branch: string
  user: string
  chatId: string
  chatType: string
  archived: ArchivedMode
  minMessages: string
  maxMessages: string
  minTokens: string
  maxTokens: string
  minCost: string
  maxCost: string
  minToolCalls: string
  maxToolCalls: string
}
export type TextField = Exclude<keyof PruneFields, 'archived'>

export const INITIAL_FIELDS: PruneFields = {
  days: String(DEFAULT_PRUNE_DAYS),
  after: '',
  before: '',
  source: '',
  title: '',
  model: '',
  provider: '',
  endReason: '',
  cwd: '',
  branch: '',
  user: '',
  chatId: '',
  chatType: '',
  archived: 'keep',
  minMessages: '',
  maxMessages: '',
  minTokens: '',
  maxTokens: '',
  minCost: '',
  maxCost: '',
  minToolCalls: '',
  maxToolCalls: ''
}

/** The fields under "More filters" (days, source and the archived choice stay in view). */
export const MORE_FIELDS: readonly TextField[] = [
  'model',
  'title',
  'after',
  'before',
  'provider',
  'endReason',
  'cwd',
  'branch',
  'user',
  'chatId',
  'chatType',
  'minMessages',
  'maxMessages',
  'minTokens',
  'maxTokens',
  'minCost',
  'maxCost',
  'minToolCalls',
  'maxToolCalls'
]

const TEXT: ReadonlyArray<[TextField, keyof PruneFilterInput]> = [
  ['source', 'source'],
  ['title', 'titleLike'],
  ['model', 'modelLike'],
  ['provider', 'provider'],
  ['endReason', 'endReason'],
  ['cwd', 'cwdPrefix'],
  ['branch', 'branchLike'],
  ['user', 'userId'],
  ['chatId', 'chatId'],
  ['chatType', 'chatType']
]
const BOUNDS: ReadonlyArray<[TextField, TextField, keyof PruneFilterInput, keyof PruneFilterInput, boolean]> = [
  ['minMessages', 'maxMessages', 'minMessages', 'maxMessages', true],
  ['minTokens', 'maxTokens', 'minTokens', 'maxTokens', true],
  ['minCost', 'maxCost', 'minCost', 'maxCost', false],
  ['minToolCalls', 'maxToolCalls', 'minToolCalls', 'maxToolCalls', true]
]
const WHOLE = /^\d+$/
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/
const MAX_DAYS = 36_500
const MAX_TEXT = 512

export interface PruneRequest {
  /** The filter to send (no errors), `olderThanDays: null` with the age as an absolute `startedBefore`. */
  filter: PruneFilterInput
  /** Field → what is wrong with it; the filter is not sent while any is set. */
  errors: Partial<Record<TextField, string>>
  /** No filter was given and no age: the bare prune's cutoff (`DEFAULT_PRUNE_DAYS`) was applied. */
  defaultAge: boolean
}

/** A `datetime-local` value (local time, as the CLI reads a naive ISO time) as epoch seconds, or null. */
function localTime(v: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(v)) return null
  const t = new Date(v.includes('T') ? v : `${v}T00:00`).getTime()
  return Number.isFinite(t) ? t / 1000 : null
}

/** The fields as a prune filter at `now` (epoch seconds), or the errors that keep it from being sent. */
export function pruneRequest(f: PruneFields, now: number): PruneRequest {
  const errors: PruneRequest['errors'] = {}
  const filter: Record<string, unknown> = {}
  const days = f.days.trim()
  let before: number | undefined
  if (days) {
    if (!DECIMAL.test(days) || Number(days) > MAX_DAYS)
      errors.days = `Enter a number of days from 0 to ${MAX_DAYS}, or leave it empty`
    else before = now - Number(days) * 86400
  }
  for (const k of ['after', 'before'] as const) {
    const v = f[k].trim()
    if (!v) continue
    const t = localTime(v)
    if (t === null) errors[k] = 'Enter a date and time'
    else if (k === 'before') before = Math.min(before ?? Infinity, t)
    else filter.startedAfter = t
  }
  if (before !== undefined) filter.startedBefore = before
  if (typeof filter.startedAfter === 'number' && before !== undefined && filter.startedAfter >= before && !errors.after)
    errors.after = 'The window is empty: this is not earlier than the age cutoff or "started before"'
  for (const [field, key] of TEXT) {
    const v = f[field].trim()
    if (v.length > MAX_TEXT) errors[field] = `At most ${MAX_TEXT} characters`
    else if (v) filter[key] = v
  }
  for (const [lo, hi, loKey, hiKey, whole] of BOUNDS) {
    const read = (field: TextField, key: keyof PruneFilterInput) => {
      const v = f[field].trim()
      if (!v) return undefined
      if (!(whole ? WHOLE : DECIMAL).test(v)) {
        errors[field] = whole ? 'Enter a whole number, 0 or more' : 'Enter a number, 0 or more'
        return undefined
      }
      filter[key] = Number(v)
      return Number(v)
    }
    const [min, max] = [read(lo, loKey), read(hi, hiKey)]
    if (min !== undefined && max !== undefined && min > max) errors[hi] = 'Less than the minimum: nothing could match'
  }
  if (f.archived === 'include') filter.includeArchived = true
  if (f.archived === 'only') filter.archived = true
  const defaultAge = !Object.keys(errors).length && isBarePrune(filter as PruneFilterInput)
  if (defaultAge) filter.startedBefore = now - DEFAULT_PRUNE_DAYS * 86400
  return { filter: { ...filter, olderThanDays: null }, errors, defaultAge }
}

/** How many of the "More filters" fields hold something (shown on the collapsed section's button). */
export const moreFiltersSet = (f: PruneFields) => MORE_FIELDS.filter((k) => f[k].trim() !== '').length
