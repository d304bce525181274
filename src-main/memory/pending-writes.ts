/**
 * The user's review of the memory writes staged for approval (`<home>/pending/memory/<id>.json`, upstream's records,
 * whichever program's agent staged them): list them, approve one (replayed against MEMORY.md / USER.md as upstream's
 * approve replays it, then its record removed; a refused write keeps its record), reject one (its record removed).
 * Upstream's `/memory pending` sees the same folder before and after.
 */
import { readdirSync, readFileSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { CaduceusError, type PendingMemoryWrite } from '@shared/contract'
import { errorMessage } from '@shared/contract/errors'
import { loadConfig } from '../config'
import { memoryLimitsOf } from './builtin-limits'
import { applyStagedWrite } from './builtin-tool'
import { pendingMemoryDir } from './write-approval'

// upstream's ids are 8 hex digits; any name without a path separator is a record's own name
const ID = /^[A-Za-z0-9_.-]{1,128}$/

type Payload = Parameters<typeof applyStagedWrite>[1]
type Parsed = { write: PendingMemoryWrite; payload: Payload | null }

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

/** One record file read and checked: a record this page cannot apply is shown with what is wrong, never thrown. */
function readRecord(home: string, id: string): Parsed | null {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(join(pendingMemoryDir(home), `${id}.json`), 'utf8'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    return { write: { id, problem: `unreadable record: ${errorMessage(err)}` }, payload: null }
  }
  const bad = (problem: string): Parsed => ({ write: { id, problem }, payload: null })
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return bad('the record is not a JSON object')
  const rec = raw as Record<string, unknown>
  const p = rec.payload
  if (!p || typeof p !== 'object' || Array.isArray(p)) return bad('the record has no payload')
  const payload = p as Record<string, unknown>
  const target = payload.target ?? 'memory' // upstream's default
  if (target !== 'memory' && target !== 'user') return bad(`unknown target ${JSON.stringify(target)}`)
  const action = payload.action
  if (action !== 'add' && action !== 'replace' && action !== 'remove' && action !== 'batch')
    return bad(`unknown action ${JSON.stringify(action)}`)
  if (action === 'batch' && payload.operations != null && !Array.isArray(payload.operations))
    return bad('the batch has no list of operations')
  const operations = Array.isArray(payload.operations) ? (payload.operations as unknown[]) : []
  const created = typeof rec.created_at === 'number' && Number.isFinite(rec.created_at) ? rec.created_at : null
  const write: PendingMemoryWrite = {
    id,
    target,
    action,
    summary: str(rec.summary) ?? '',
    origin: str(rec.origin) ?? 'foreground',
    createdAt: created === null ? null : Math.round(created * 1000),
    sessionId: str(rec.session_id) ?? null,
    ...(action === 'batch'
      ? {
          operations: operations.map((op) => {
            const o = (op && typeof op === 'object' ? op : {}) as Record<string, unknown>
            return { action: str(o.action) ?? '?', content: str(o.content) ?? null, oldText: str(o.old_text) ?? null }
          })
        }
      : { content: str(payload.content) ?? null, oldText: str(payload.old_text) ?? null })
  }
  return { write, payload: { action, target, content: payload.content, old_text: payload.old_text, operations } }
}

/** The staged writes of `home`, oldest first (upstream's order); none when nothing was ever staged. */
export function listPendingMemoryWrites(home: string): PendingMemoryWrite[] {
  let names: string[]
  try {
    names = readdirSync(pendingMemoryDir(home)).filter((f) => f.endsWith('.json'))
  } catch {
    return [] // no folder: nothing staged
  }
  const found = names.map((f) => readRecord(home, f.slice(0, -'.json'.length))?.write)
  return found
    .filter((w): w is PendingMemoryWrite => w !== undefined)
    .sort((a, b) => ('createdAt' in a ? (a.createdAt ?? 0) : 0) - ('createdAt' in b ? (b.createdAt ?? 0) : 0))
}

function known(home: string, id: string): Parsed {
  if (!ID.test(id) || id.startsWith('.')) throw new CaduceusError('invalid_input', `no pending memory write '${id}'`)
  const parsed = readRecord(home, id)
  if (!parsed) throw new CaduceusError('not_found', `no pending memory write '${id}' (approved or rejected already?)`)
  return parsed
}

// a write being applied: a second Approve of it (a double click, two windows) waits for none and is refused
const applying = new Set<string>()

/**
 * Approve: the write is applied to MEMORY.md / USER.md under their lock, with config.yaml's limits, and its record
 * removed. A refusal (over the limit, no entry matched, a threat found) leaves the record, as upstream leaves it.
 */
async function approve(home: string, id: string): Promise<{ error?: string }> {
  const { write, payload } = known(home, id)
  if (!payload)
    throw new CaduceusError(
      'invalid_input',
      `pending memory write '${id}' cannot be applied: ${'problem' in write ? write.problem : ''}`
    )
  const key = join(pendingMemoryDir(home), id)
  if (applying.has(key)) throw new CaduceusError('conflict', `pending memory write '${id}' is being applied already`)
  applying.add(key)
  try {
    let reply: Record<string, unknown>
    try {
      reply = await applyStagedWrite(home, payload, memoryLimitsOf(loadConfig(home).raw))
    } catch (err) {
      reply = { success: false, error: errorMessage(err) }
    }
    if (reply.success !== true)
      return { error: typeof reply.error === 'string' ? reply.error : 'the write was refused' }
    discard(home, id)
    return {}
  } finally {
    applying.delete(key)
  }
}

/**
 * The user's decision on one staged write. Reject: the record is removed and nothing is written (upstream's reject);
 * a malformed record may be rejected too. `error`: an approved write the store refused, its record kept.
 */
export async function decidePendingMemoryWrite(
  home: string,
  id: string,
  decision: 'approve' | 'reject'
): Promise<{ error?: string }> {
  if (decision === 'approve') return approve(home, id)
  known(home, id)
  discard(home, id)
  return {}
}

function discard(home: string, id: string): void {
  try {
    unlinkSync(join(pendingMemoryDir(home), `${id}.json`))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err // gone already: the same end
  }
}
