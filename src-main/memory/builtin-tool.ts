/**
 * The built-in `memory` tool (upstream-shaped): add / replace / remove entries in MEMORY.md (the
 * agent's notes) or USER.md (what it knows about the user). Replace and remove find the entry by a
 * unique substring (`old_text`), as upstream does, because the model never sees entry indices. Same verdicts
 * as upstream's tool over the same files: the limits from config.yaml, the threat scan, exact duplicates (an
 * add is a no-op, a replace or remove of identical entries takes the first), the rewrite guard (driftBackup),
 * and the lock around each read-modify-write. The answers behave as upstream's (in Caduceus's words):
 * a write's success is terminal, without the entries, and consolidation refusals are capped per turn.
 */
import { CaduceusError } from '@shared/contract'
import { pyLen, pyStrip } from '@shared/contract/py-text'
import { errorMessage } from '@shared/contract/errors'
import { driftBackup, driftMessage, normalizeEntry, readEntries, withMemoryLock, writeEntries } from './builtin-store'
import { blockedMessage, DEFAULT_MEMORY_LIMITS, entriesSize, usageOf, type MemoryLimits } from './builtin-limits'
import { pyTruthy } from '@shared/contract/py-text'
import { applyBatch, consolidationFailure, finishedWrite, isConsolidationFailure, pyRepr } from './builtin-batch'
import { memoryWriteApproval, stageMemoryWrite } from './write-approval'

export const MEMORY_TOOL_NAME = 'memory'

// The same parameters upstream's tool declares (a model trained on Hermes calls it the same way): only `target`
// is required, and `operations` is the batch shape the description steers the model to.
const OP_ACTIONS = ['add', 'replace', 'remove']

export const MEMORY_TOOL_SCHEMA = {
  name: MEMORY_TOOL_NAME,
  description:
    'Keep durable facts in persistent memory, which is loaded into every future session, so write short, ' +
    'high-value entries.\n\n' +
    'Prefer ONE call with an `operations` array ({action, content?, old_text?} items) for all your changes: it ' +
    'is applied all-or-nothing and the size limit is checked only on the end result, so the same call can drop ' +
    'or shorten old entries and add new ones even when an add on its own would not fit. A successful answer ' +
    'means the update is finished; do not send it again. Use the single action/content/old_text fields only ' +
    'for one isolated change.\n\n' +
    'Save when the user states a preference, correction or personal detail, or when you learn a lasting fact ' +
    'about their environment, conventions or workflow; user preferences and corrections matter most.\n\n' +
    'When memory is full an add is refused and the current entries are listed: send one batch that removes or ' +
    'shortens enough of them together with the add.\n\n' +
    'Targets: "user" is who the user is (name, role, preferences, style); "memory" is your own notes ' +
    '(environment, conventions, tool quirks, lessons).\n\n' +
    'Do not save trivia, things easy to look up again, raw data, task progress or to-do state; a reusable ' +
    'procedure belongs in a skill.',
  parameters: {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        enum: OP_ACTIONS,
        description: 'Single-change shape: what to do. Leave out when sending `operations`.'
      },
      target: {
        type: 'string',
        enum: ['memory', 'user'],
        description: "Which store: 'memory' (your notes) or 'user' (the user's profile)."
      },
      content: {
        type: 'string',
        description: 'Single-change shape: the entry text, needed for add and replace.'
      },
      old_text: {
        type: 'string',
        description:
          'Single-change shape, needed for replace and remove: a short substring found in exactly one existing entry.'
      },
      operations: {
        type: 'array',
        description:
          'Batch shape: changes applied together in one call, checked against the size limit only at the end. ' +
          'Best for several changes or for making room. Each item is {action, content?, old_text?}.',
        items: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: OP_ACTIONS },
            content: { type: 'string', description: 'Entry text (add, replace).' },
            old_text: { type: 'string', description: 'Substring naming the entry (replace, remove).' }
          },
          required: ['action']
        }
      }
    },
    required: ['target']
  }
}

type Reply = Record<string, unknown>
const fail = (error: string, extra: Reply = {}): Reply => ({ success: false, error, ...extra })

/** Refusals to retry within one turn before the tool tells the model to stop and answer (upstream's cap, 3). */
const MAX_CONSOLIDATION_FAILURES = 3

/** The turn's count of consolidation refusals; the provider resets it when a turn starts. */
export type FailureCount = { n: number }

/**
 * Runs one memory tool call against `home`'s store. Returns the JSON result string; never throws. Past the
 * turn's cap a consolidation refusal becomes a terminal answer, so a fragile consolidation can't loop the turn
 * until its budget is spent; any successful write resets the count.
 */
export async function runMemoryTool(
  home: string,
  args: Record<string, unknown>,
  limits: MemoryLimits = DEFAULT_MEMORY_LIMITS,
  failures: FailureCount = { n: 0 },
  sessionId?: string
): Promise<string> {
  try {
    const reply = await memoryCall(home, args, limits, { sessionId })
    if (reply.success === true) failures.n = 0
    else if (isConsolidationFailure(reply) && ++failures.n > MAX_CONSOLIDATION_FAILURES)
      return JSON.stringify({
        success: false,
        done: true,
        error:
          `${failures.n} memory changes were refused this turn. Make no more memory calls now: answer the user ` +
          'and save the fact in a later turn.'
      })
    return JSON.stringify(reply)
  } catch (err) {
    return JSON.stringify(fail(err instanceof CaduceusError ? err.message : `memory store error: ${errorMessage(err)}`))
  }
}

/**
 * Replays a write the user approved (a pending record's payload), as upstream's approve does: straight to the store
 * with its own limits, refusals and lock, never staged again. The answer says whether it was applied.
 */
export async function applyStagedWrite(
  home: string,
  payload: { action: string; target: 'memory' | 'user'; content?: unknown; old_text?: unknown; operations?: unknown[] },
  limits: MemoryLimits
): Promise<Reply> {
  const { action, target } = payload
  if (action === 'batch') return applyBatch(home, target, payload.operations ?? [], limits[target])
  // upstream reads a missing or null text as ''
  const text = (v: unknown) => (typeof v === 'string' ? v : '')
  const args = { action, target, content: text(payload.content), old_text: text(payload.old_text) }
  return memoryCall(home, args, limits, null)
}

async function memoryCall(
  home: string,
  args: Record<string, unknown>,
  limits: MemoryLimits,
  /** Where a staged write says it came from; null: the user approved this write, it is not staged again. */
  gate: { sessionId?: string } | null
): Promise<Reply> {
  const { action } = args
  const target = args.target ?? 'memory'
  if (target !== 'memory' && target !== 'user')
    return fail(`Invalid target '${pyRepr(target)}'. Use 'memory' or 'user'.`)
  // Upstream takes the batch path for any truthy `operations`; an empty list falls through to the single change.
  if (pyTruthy(args.operations)) {
    if (!Array.isArray(args.operations))
      return { error: 'operations must be a list of {action, content?, old_text?} objects.', success: false }
    if (gate && memoryWriteApproval(home)) return stageMemoryWrite(home, target, args, gate.sessionId)
    return applyBatch(home, target, args.operations as unknown[], limits[target])
  }
  const limit = limits[target]
  // Missing arguments are refused before the store is touched, as upstream refuses them: a replace or remove without
  // old_text gets the current entries so the model can retry at once.
  if (action === 'add' && !pyTruthy(args.content)) return fail("'add' needs content.")
  if ((action === 'replace' || action === 'remove') && !pyTruthy(args.old_text)) {
    const entries = readEntries(home, target)
    return fail(
      `'${action}' needs old_text: a short part of the entry, unique among the current_entries below. ` +
        `Call ${action} again with it.`,
      { current_entries: entries, usage: usageOf(entries, limit, false) }
    )
  }
  if (action === 'replace' && !pyTruthy(args.content)) return fail("'replace' needs content.")
  if (action !== 'add' && action !== 'replace' && action !== 'remove')
    return fail(`No action '${pyRepr(action)}': use add, replace or remove.`)
  // A well-formed write waits for the user's approval when config.yaml asks for it (checked, as upstream checks it,
  // when the write is approved and replayed)
  if (gate && memoryWriteApproval(home)) return stageMemoryWrite(home, target, args, gate.sessionId)

  let text = ''
  if (action !== 'remove') {
    text = normalizeEntry(String(args.content ?? ''))
    const blocked = blockedMessage(text)
    if (blocked) return fail(blocked)
  }
  if (action === 'add') {
    return withMemoryLock(home, target, () => {
      const entries = readEntries(home, target)
      if (entries.includes(text)) return finishedWrite(target, entries, limit, 'Entry already exists; nothing added.')
      const next = [...entries, text]
      if (entriesSize(next) > limit)
        return consolidationFailure(
          fail(
            `This entry (${pyLen(text)} chars) does not fit: memory holds ${usageOf(entries, limit, false)} chars. ` +
              `Make room in this turn: merge entries that overlap with 'replace', drop stale ones with 'remove' ` +
              `(current_entries below), then add it again.`,
            { current_entries: entries, usage: usageOf(entries, limit, false) }
          )
        )
      writeEntries(home, target, next)
      return finishedWrite(target, next, limit, 'Entry added.')
    })
  }
  const oldText = pyStrip(String(args.old_text))
  if (!oldText) return fail('old_text is empty.')
  return withMemoryLock(home, target, () => {
    const bak = driftBackup(home, target, limit)
    if (bak) return fail(driftMessage(target, bak), { drift_backup: bak })
    const entries = readEntries(home, target)
    const matches = entries.map((e, i) => (e.includes(oldText) ? i : -1)).filter((i) => i >= 0)
    if (matches.length === 0)
      return consolidationFailure(
        fail(`No entry contains '${oldText}'. Take the text from current_entries below and call ${action} again.`, {
          current_entries: entries
        })
      )
    // Several matches are fine when they are one text repeated: the first is the one changed.
    const matched = matches.map((i) => entries[i]!)
    if (new Set(matched).size > 1)
      return fail(`'${oldText}' is in more than one entry (matches below): give a longer part of one.`, {
        matches: matched.map(preview)
      })
    const next = [...entries]
    if (action === 'remove') {
      next.splice(matches[0]!, 1)
      writeEntries(home, target, next)
      return finishedWrite(target, next, limit, 'Entry removed.')
    }
    next[matches[0]!] = text
    if (entriesSize(next) > limit)
      return consolidationFailure(
        fail(
          `With this replacement memory would hold ${usageOf(next, limit, false)} chars, over its limit. In this ` +
            `turn, shorten the content or 'remove' stale entries (current_entries below), then replace again.`,
          { current_entries: entries, usage: usageOf(entries, limit, false) }
        )
      )
    writeEntries(home, target, next)
    return finishedWrite(target, next, limit, 'Entry replaced.')
  })
}

/** An entry as a refusal lists it: its first 80 code points (Python's slice), "..." when cut. */
function preview(entry: string): string {
  const points = [...entry]
  return points.length > 80 ? points.slice(0, 80).join('') + '...' : entry
}
