/** Records by key plus their order (STYLE: normalize), built or extended from a page of items. */
export interface Normalized<T> {
  byKey: Record<string, T>
  order: string[]
}

/**
 * Append `items` to `base` (empty by default). An item whose key is already present replaces the record
 * in place and keeps its position: keyset pages can overlap after live reordering.
 */
export function mergeByKey<T>(items: readonly T[], keyOf: (item: T) => string, base?: Normalized<T>): Normalized<T> {
  const byKey = { ...(base?.byKey ?? {}) }
  const order = [...(base?.order ?? [])]
  for (const item of items) {
    const k = keyOf(item)
    if (!byKey[k]) order.push(k)
    byKey[k] = item
  }
  return { byKey, order }
}
