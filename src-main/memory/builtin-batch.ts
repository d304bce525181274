/**
 * The `memory` tool's batch shape (`operations`): several add / replace / remove changes to one file in one
 * call, all-or-nothing, with the size limit checked only on the end result, so a model can free room and add
 * in a single call instead of a refused add followed by a round of consolidation calls. The answers are
 * upstream's word for word (a model reads them, and upstream's own replies teach it what they mean).
 */
import { pyStrip, pyTruthy } from '@shared/contract/py-text'
import { driftBackup, driftMessage, normalizeEntry, readEntries, withMemoryLock, writeEntries } from './builtin-store'
import type { MemoryTarget } from './builtin-store'
import { blockedMessage, entriesSize, usageOf } from './builtin-limits'

type Reply = Record<string, unknown>

/** How an f-string renders a JSON value (`str()`), for the few answers that echo what the model sent. */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  return JSON.stringify(v)
}

const opText = (v: unknown) => (typeof v === 'string' ? v : pyTruthy(v) ? pyRepr(v) : '')

/**
 * Refusals the model can fix by consolidating in the same turn (over the limit, no match, a bad batch): marked so
 * the tool counts them per turn (builtin-tool's consolidation cap), as upstream's store counts them.
 */
const retryable = new WeakSet<Reply>()
export function consolidationFailure(reply: Reply): Reply {
  retryable.add(reply)
  return reply
}
export const isConsolidationFailure = (reply: Reply) => retryable.has(reply)

/** The success answer upstream gives every committed write: terminal, without the entries (they invite repeats). */
export function finishedWrite(target: MemoryTarget, entries: string[], limit: number, message: string): Reply {
  return {
    success: true,
    done: true,
    target,
    usage: usageOf(entries, limit),
    entry_count: entries.length,
    message,
    note: 'Write saved. This update is complete — do not repeat it.'
  }
}

export async function applyBatch(home: string, target: MemoryTarget, ops: unknown[], limit: number): Promise<Reply> {
  const items = ops.map((op) => (op && typeof op === 'object' && !Array.isArray(op) ? (op as Reply) : {}))
  // Every text is scanned before the file is touched: one poisoned item refuses the whole batch.
  for (const [i, op] of items.entries()) {
    const content = op.content
    if ((op.action === 'add' || op.action === 'replace') && pyTruthy(content)) {
      const blocked = blockedMessage(opText(content))
      if (blocked) return { success: false, error: `Operation ${i + 1}: ${blocked}` }
    }
  }
  return withMemoryLock(home, target, () => {
    const bak = driftBackup(home, target, limit)
    if (bak) return { success: false, error: driftMessage(target, bak), drift_backup: bak }
    const live = readEntries(home, target)
    const refuse = (message: string): Reply =>
      consolidationFailure({
        success: false,
        error: `${message} No operations were applied (batch is all-or-nothing).`,
        current_entries: live,
        usage: usageOf(live, limit, false)
      })
    const working = [...live]
    for (const [i, op] of items.entries()) {
      const act = op.action
      const content = pyStrip(opText(op.content))
      const oldText = pyStrip(opText(op.old_text))
      const pos = `Operation ${i + 1} (${pyTruthy(act) ? pyRepr(act) : 'unknown'})`
      if (act === 'add') {
        if (!content) return refuse(`${pos}: content is required.`)
        if (!working.includes(content)) working.push(normalizeEntry(content))
        continue
      }
      if (act !== 'replace' && act !== 'remove') return refuse(`${pos}: unknown action. Use add, replace, or remove.`)
      if (!oldText) return refuse(`${pos}: old_text is required.`)
      if (act === 'replace' && !content) return refuse(`${pos}: content is required (use action='remove' to delete).`)
      const matches = working.map((e, j) => (e.includes(oldText) ? j : -1)).filter((j) => j >= 0)
      if (matches.length === 0) return refuse(`${pos}: no entry matched '${oldText}'.`)
      if (new Set(matches.map((j) => working[j])).size > 1)
        return refuse(`${pos}: '${oldText}' matched multiple distinct entries -- be more specific.`)
      if (act === 'remove') working.splice(matches[0]!, 1)
      else working[matches[0]!] = normalizeEntry(content)
    }
    if (entriesSize(working) > limit)
      return consolidationFailure({
        success: false,
        error: `After applying all ${ops.length} operations, memory would be at ${usageOf(working, limit, false)} chars -- over the limit. Remove or shorten more entries in the same batch (see current_entries below), then retry.`,
        current_entries: live,
        usage: usageOf(live, limit, false)
      })
    writeEntries(home, target, working)
    return finishedWrite(target, working, limit, `Applied ${ops.length} operation(s).`)
  })
}
