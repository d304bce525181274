/**
 * config.yaml's `memory.write_approval`: when it is on, a memory tool call changes nothing and waits for the user's
 * approval instead, staged where upstream stages it (`<home>/pending/memory/<id>.json`, upstream's record shape), so
 * the user reviews it with upstream's `/memory pending` whichever program's agent asked. Caduceus has no inline
 * approval prompt (upstream has one only in its interactive terminal), so every such write is staged, as upstream's
 * gateway, API server and cron stage theirs.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig, readSection } from '../config'

const ON_WORDS = new Set(['on', 'true', 'yes', '1', 'approve', 'enabled'])

/** Whether the profile asks for memory writes to be approved (a boolean, or one of the words upstream takes). */
export function memoryWriteApproval(home: string): boolean {
  const v = readSection(loadConfig(home).raw, 'memory').write_approval
  if (typeof v === 'boolean') return v
  return typeof v === 'string' && ON_WORDS.has(v.trim().toLowerCase())
}

/** Python's str() of a value a tool call carried (a missing key reads as ''). */
const py = (v: unknown): string =>
  v === undefined
    ? ''
    : v === null
      ? 'None'
      : typeof v === 'string'
        ? v
        : typeof v === 'boolean'
          ? v
            ? 'True'
            : 'False'
          : JSON.stringify(v)

/** The first `n` characters, as Python slices a string (by code point). */
const head = (s: string, n: number) => Array.from(s).slice(0, n).join('')

/** A one-line account of the write for the pending list, in the shape upstream gives its own records. */
function summaryOf(target: string, args: Record<string, unknown>): string {
  const label = target === 'user' ? 'user profile' : 'memory'
  let what: string
  let detail: string
  if (Array.isArray(args.operations)) {
    const ops = args.operations as unknown[]
    what = `apply ${ops.length} op(s) to ${label}`
    detail = ops
      .map((raw) => {
        const op = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
        const act = 'action' in op ? py(op.action) : '?'
        if (act === 'remove') return `- remove: ${py(op.old_text)}`
        if (act === 'replace') return `- replace: ${py(op.old_text)} -> ${py(op.content)}`
        return `- ${act}: ${py(op.content)}`
      })
      .join('\n')
  } else if (args.action === 'add') {
    what = `add to ${label}`
    detail = py(args.content ?? '')
  } else if (args.action === 'replace') {
    what = `replace in ${label}`
    detail = `old: ${py(args.old_text)}\nnew: ${py(args.content)}`
  } else {
    what = `remove from ${label}`
    detail = py(args.old_text ?? '')
  }
  return `${what}: ${head(detail, 120)}`.trim()
}

/**
 * Stages the call's write for approval and returns the tool's answer: nothing is saved; the record holds what
 * replaying the write needs (upstream's approve replays `payload` against the store).
 */
export function stageMemoryWrite(
  home: string,
  target: 'memory' | 'user',
  args: Record<string, unknown>,
  sessionId?: string
) {
  const id = randomBytes(4).toString('hex')
  const payload = Array.isArray(args.operations)
    ? { action: 'batch', target, operations: args.operations }
    : { action: args.action, target, content: args.content ?? null, old_text: args.old_text ?? null }
  const record = {
    id,
    subsystem: 'memory',
    action: payload.action,
    summary: summaryOf(target, args),
    origin: 'foreground',
    created_at: Date.now() / 1000,
    payload,
    // not in upstream's records (its reader ignores the key): lets the Memory page say which session asked
    ...(sessionId ? { session_id: sessionId } : {})
  }
  const dir = pendingMemoryDir(home)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${id}.json`)
  writeFileSync(`${file}.tmp`, JSON.stringify(record, null, 2))
  renameSync(`${file}.tmp`, file)
  return {
    success: true,
    staged: true,
    pending_id: id,
    message:
      'Not saved yet: memory.write_approval is on in config.yaml, so this change waits for the user to approve it ' +
      '(hermes: /memory pending). Do not send it again.'
  }
}

/** Where staged memory writes wait: upstream's `pending/memory`, one `<id>.json` record each. */
export const pendingMemoryDir = (home: string): string => join(home, 'pending', 'memory')

/** How many staged memory writes wait for approval (upstream's count: the records in pending/memory). */
export function pendingMemoryWrites(home: string): number {
  try {
    return readdirSync(pendingMemoryDir(home)).filter((f) => f.endsWith('.json')).length
  } catch {
    return 0 // no folder (nothing ever staged), or one this user may not list
  }
}
