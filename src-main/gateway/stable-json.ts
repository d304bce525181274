/**
 * Deterministic JSON (keys sorted at every depth, like Python's `json.dumps(sort_keys=True, default=str)`),
 * so equal configs hash equally whatever order they were written in.
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(normalize(value, new WeakSet()))
}

function normalize(v: unknown, seen: WeakSet<object>): unknown {
  if (v === undefined || v === null) return null
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function') return String(v)
  if (v instanceof Date) return v.toISOString()
  const obj = v as object
  if (seen.has(obj)) return '[circular]'
  seen.add(obj)
  try {
    if (Array.isArray(obj)) return obj.map((x) => normalize(x, seen))
    if (obj instanceof Map) return normalize(Object.fromEntries(obj), seen)
    if (obj instanceof Set) return [...obj].map((x) => normalize(x, seen))
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(obj).sort()) out[k] = normalize((obj as Record<string, unknown>)[k], seen)
    return out
  } finally {
    seen.delete(obj)
  }
}
