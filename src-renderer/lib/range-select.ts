/**
 * Shift-click range selection over a list that can re-sort under the user (live updates): the range is taken
 * between the anchor row and the clicked row *in the current order*, and set to the clicked row's new state,
 * the way file managers do. Keys, not positions, so a re-sorted list never selects the wrong rows.
 */
function rangeKeys(order: readonly string[], anchor: string | null, target: string): string[] {
  const to = order.indexOf(target)
  if (to < 0) return []
  const from = anchor == null ? -1 : order.indexOf(anchor)
  if (from < 0) return [target]
  const [a, b] = from <= to ? [from, to] : [to, from]
  return order.slice(a, b + 1)
}

/**
 * The selection after a click on `target`: a plain click toggles it; a shift-click sets every row from the
 * anchor to it to the state the clicked row takes (selected unless it already was). The anchor moves to `target`.
 */
export function applyClick(
  selected: ReadonlySet<string>,
  order: readonly string[],
  anchor: string | null,
  target: string,
  shift: boolean
): { selected: Set<string>; anchor: string } {
  const next = new Set(selected)
  const on = !selected.has(target)
  const keys = shift ? rangeKeys(order, anchor, target) : [target]
  for (const k of keys) {
    if (on) next.add(k)
    else next.delete(k)
  }
  return { selected: next, anchor: target }
}
