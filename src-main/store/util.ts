/** Small pure helpers shared by the store's read and write paths. */
import { parsePyJson } from '@shared/contract/py-text'

export const nowSeconds = () => Date.now() / 1000

/** `input_tokens` → `inputTokens`: a column name as its record key (the `Camel<>` type in types.ts, at run time). */
export const camelKey = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

/**
 * Parse JSON without throwing: malformed upstream data must degrade, not crash the host. Python's json tokens count
 * (a model_config's `"max_iterations": Infinity` for `agent.max_turns: .inf`, as upstream's json.dumps writes it).
 */
export function safeJson(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return null
  try {
    return parsePyJson(text)
  } catch (err) {
    if (err instanceof SyntaxError) return null
    throw err
  }
}

export function jsonObject(text: unknown): Record<string, unknown> | null {
  const v = safeJson(text)
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

export const num = (v: unknown, fallback = 0): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : fallback
export const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
export const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v))
