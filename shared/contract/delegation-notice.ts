/**
 * The message that tells a session its background delegation finished, read back into its parts so the transcript
 * and the exports show it as an event rather than as text (notice-rows.ts). Two writers make it, each in a fixed
 * shape, and only those shapes are taken (anything else stays the message it is — a user may paste or quote such a
 * header):
 * - Caduceus (src-main/delegation/completion.ts): a user row with `display_kind = 'async_delegation_complete'` whose
 *   first line is `[Background delegation <id> finished: <status>]`, then `Task[ n]: <goal>` and `Result: …` or
 *   `Error: …` per task, or a lone `Error: …`.
 * - upstream Hermes (tools/process_registry.py's async-delegation formatter): the parent's next user input, no
 *   display kind, opening with `[ASYNC DELEGATION COMPLETE — <id>]` and its fixed "A background subagent you
 *   dispatched earlier has finished." line, or the batch form `[ASYNC DELEGATION BATCH COMPLETE — <id>]` with "A
 *   background fan-out of N subagent(s) you dispatched earlier has finished."; then `Label: value` lines and the
 *   result after `--- RESULT ---`, or one `--- ✓|✗ TASK i/n: goal  (status=…) ---` block per task.
 */

export interface NoticeTask {
  goal: string
  /** The task's own status where the notice gives one per task (upstream's batch), else the delegation's. */
  status: string | null
  /** Result text, or what went wrong. */
  outcome: string
  failed: boolean
}

export interface DelegationNotice {
  writer: 'caduceus' | 'upstream'
  delegationId: string
  status: string | null
  tasks: NoticeTask[]
  /** The delegation's own error, when it failed as a whole (no task reported). */
  error: string | null
  /** Upstream's `Label: value` head lines: Dispatched, Context you provided, Toolsets, Role, Model, … */
  facts: Array<[string, string]>
}

const CADUCEUS_KIND = 'async_delegation_complete'
const CADUCEUS_HEAD = /^\[Background delegation (\S+) finished: (\S+)\]$/
const UPSTREAM_HEAD = /^\[ASYNC DELEGATION COMPLETE — (\S+)\]$/
const UPSTREAM_SECOND = 'A background subagent you dispatched earlier has finished.'
const UPSTREAM_BATCH_HEAD = /^\[ASYNC DELEGATION BATCH COMPLETE — (\S+)\]$/
const UPSTREAM_BATCH_SECOND = /^A background fan-out of \d+ subagent\(s\) you dispatched earlier has finished\./
const UPSTREAM_TASK =
  /^--- ([✓✗]) TASK (\d+)\/(\d+)(?:: (.*?))?  \(status=([^,)]*)(?:, api_calls=\d+)?(?:, [^)]*s)?\) ---$/

const OK = new Set(['completed', 'success'])
export const isOkStatus = (s: string | null) => s !== null && OK.has(s)

/** `content` of a user row, split once: header and the rest. */
function lines(content: string): string[] {
  return content.replace(/\r\n/g, '\n').split('\n')
}

function caduceusNotice(id: string, status: string, body: string[]): DelegationNotice {
  const tasks: NoticeTask[] = []
  let error: string | null = null
  let cur: NoticeTask | null = null
  let inOutcome = false
  // "Task n:" starts the next task only in a notice of several (a single task's result may hold any line)
  const many = body.some((l) => /^Task \d+: /.test(l))
  for (const l of body) {
    const task: RegExpExecArray | null = many ? /^Task \d+: (.*)$/.exec(l) : cur ? null : /^Task: (.*)$/.exec(l)
    if (task) {
      cur = { goal: task[1]!, status, outcome: '', failed: !isOkStatus(status) }
      tasks.push(cur)
      inOutcome = false
      continue
    }
    const out = !inOutcome ? /^(Result|Error): ([\s\S]*)$/.exec(l) : null
    if (out && cur) {
      cur.outcome = out[2]!
      cur.failed = out[1] === 'Error'
      inOutcome = true
    } else if (out && !cur) error = out[2]!
    else if (cur && inOutcome) cur.outcome += `\n${l}`
    else if (error !== null) error += `\n${l}`
  }
  return { writer: 'caduceus', delegationId: id, status, tasks, error, facts: [] }
}

const FACT =
  /^(Dispatched|Original goal|Context you provided|Toolsets|Role|Model|Status|API calls|Duration|Total duration): /

/** `Role: leaf   Model: x` → two facts (upstream puts several on one line, three spaces apart). */
function factsOf(l: string): Array<[string, string]> {
  return l.split(/ {3}(?=[A-Z][A-Za-z ]*: )/).flatMap((part) => {
    const m = /^([A-Z][A-Za-z ]*): (.*)$/.exec(part)
    return m ? [[m[1]!, m[2]!] as [string, string]] : []
  })
}

function upstreamSingle(id: string, body: string[]): DelegationNotice {
  const cut = body.indexOf('--- RESULT ---')
  const head = cut < 0 ? body : body.slice(0, cut)
  const facts = head.filter((l) => FACT.test(l)).flatMap(factsOf)
  const fact = (k: string) => facts.find(([n]) => n === k)?.[1] ?? null
  const status = fact('Status')
  const outcome = cut < 0 ? '' : body.slice(cut + 1).join('\n')
  return {
    writer: 'upstream',
    delegationId: id,
    status,
    tasks: [{ goal: fact('Original goal') ?? '', status, outcome, failed: !isOkStatus(status) }],
    error: null,
    facts: facts.filter(([n]) => n !== 'Original goal' && n !== 'Status')
  }
}

function upstreamBatch(id: string, body: string[]): DelegationNotice {
  const tasks: NoticeTask[] = []
  const facts: Array<[string, string]> = []
  let error: string | null = null
  let cur: NoticeTask | null = null
  let errorBlock = false
  for (const l of body) {
    const t = UPSTREAM_TASK.exec(l)
    if (t) {
      cur = { goal: t[4] ?? '', status: t[5]!, outcome: '', failed: t[1] === '✗' }
      tasks.push(cur)
      continue
    }
    if (cur) cur.outcome = cur.outcome ? `${cur.outcome}\n${l}` : l
    else if (l === '--- ERROR ---') errorBlock = true
    else if (errorBlock) error = error === null ? l : `${error}\n${l}`
    else if (FACT.test(l)) facts.push(...factsOf(l))
  }
  for (const t of tasks) t.outcome = t.outcome.trim()
  const failed = error !== null || tasks.some((t) => t.failed)
  return {
    writer: 'upstream',
    delegationId: id,
    status: failed ? 'failed' : 'completed',
    tasks,
    error: error?.replace(/^The batch did not complete successfully: /, '') ?? null,
    facts
  }
}

/** The notice in this message, or null when it is not one of the two shapes above. */
export function parseDelegationNotice(m: {
  role: string
  displayKind: string | null
  content: string | null
}): DelegationNotice | null {
  if (m.role !== 'user' || !m.content) return null
  const [first = '', second = '', ...rest] = lines(m.content)
  if (m.displayKind === CADUCEUS_KIND) {
    const h = CADUCEUS_HEAD.exec(first)
    return h ? caduceusNotice(h[1]!, h[2]!, [second, ...rest]) : null
  }
  if (m.displayKind) return null
  const single = UPSTREAM_HEAD.exec(first)
  if (single && second.startsWith(UPSTREAM_SECOND)) return upstreamSingle(single[1]!, rest)
  const batch = UPSTREAM_BATCH_HEAD.exec(first)
  if (batch && UPSTREAM_BATCH_SECOND.test(second)) return upstreamBatch(batch[1]!, rest)
  return null
}
