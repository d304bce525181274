/**
 * A request's input validated once per distinct value. The Sessions page asks `sessions.list` with the same few
 * inputs again and again (its filters and page size; a cursor when it loads more), each time right after another
 * program wrote, when nothing the process touched is in the CPU's caches: the schema's parse then walks dozens of
 * zod's objects and cost ~30–90 µs of a ~0.9 ms request. Here a value zod already accepted gets the same output again,
 * found by its JSON text.
 *
 * Exact, not approximate: only plain JSON values are looked up (what the WebSocket and IPC transports deliver —
 * strings, finite numbers, booleans, null, plain arrays and objects), for which the JSON text names the value
 * (undefined, -0, NaN, Dates, class instances or functions would be conflated and are parsed every time); the
 * schemas opted in (dispatch.ts) are pure (no transforms, no computed defaults); the output is frozen, so no handler
 * changes what the next request gets; a refusal is never kept (zod words it anew each time).
 */
import type { z } from 'zod'

/** Entries per schema: a session list's filters and page cursors (cleared when full, never grown past it). */
const MAX_ENTRIES = 64
/** Longer inputs (a long source list, say) are parsed every time rather than kept. */
const MAX_KEY_CHARS = 2048
const MAX_DEPTH = 8

type Parsed = ReturnType<z.ZodType['safeParse']>
const memos = new WeakMap<z.ZodType, Map<string, Parsed>>()

/** `schema.safeParse(input)`, or the frozen output of an earlier identical plain input. */
export function parseOnce(schema: z.ZodType, input: unknown): Parsed {
  if (!isPlain(input, 0)) return schema.safeParse(input)
  const key = JSON.stringify(input)
  if (key.length > MAX_KEY_CHARS) return schema.safeParse(input)
  let memo = memos.get(schema)
  const hit = memo?.get(key)
  if (hit) return hit
  const parsed = schema.safeParse(input)
  if (!parsed.success) return parsed
  if (!memo) memos.set(schema, (memo = new Map()))
  if (memo.size >= MAX_ENTRIES) memo.clear()
  const kept = { success: true, data: deepFreeze(parsed.data) } as Parsed
  memo.set(key, kept)
  return kept
}

/** A value JSON text names exactly. */
function isPlain(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0)
    case 'object': {
      if (v === null) return true
      if (depth >= MAX_DEPTH) return false
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return false
        for (let i = 0; i < v.length; i++) if (!(i in v) || !isPlain(v[i], depth + 1)) return false
        return true
      }
      const proto = Object.getPrototypeOf(v)
      if (proto !== Object.prototype && proto !== null) return false
      for (const k of Object.keys(v)) if (!isPlain((v as Record<string, unknown>)[k], depth + 1)) return false
      return true
    }
    default:
      return false
  }
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}
