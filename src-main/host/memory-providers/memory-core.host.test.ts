// A turn's memory through the real host path, compared with upstream (scripts/golden/memory_core.py →
// test/fixtures/upstream/memory-core/upstream.json): the <memory-context> block the model receives for what
// a provider recalled (fence tags in recalled text are stripped, the system note says it is not user input),
// which memory parts and tools an agent gets for memory_enabled / user_profile_enabled / disabled_toolsets,
// and an `operations` batch: its answer, the files it writes and the provider writes it is mirrored as.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecordedRequest, ScriptReply } from '../../agent/scripted'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { lastOf, makeRig, messagesOf, toolNames, turnText, writePlugin, type Rig } from '../test-fixtures/memory-host'

interface Golden {
  context_blocks: Array<{ raw: string; block: string }>
  flags: Array<{
    name: string
    config: string
    files: Record<string, string>
    tools: string[]
    memory_block: boolean
    user_block: boolean
    files_after: Record<string, string>
  }>
  batches: Array<{
    name: string
    config: string
    files: Record<string, string>
    target: string
    operations: unknown
    answer: Record<string, unknown>
    after: Record<string, string>
    mirrored: Array<{ action: string; target: string; content: string; old_text: string | null }>
  }>
}
const golden = JSON.parse(
  readFileSync(join(__dirname, '../../../test/fixtures/upstream/memory-core/upstream.json'), 'utf8')
) as Golden

const KEY = '__cadMemCoreRec'
type Store = { recall: string; writes: Array<Record<string, unknown>> }
const store = (): Store => ((globalThis as Record<string, unknown>)[KEY] ??= { recall: '', writes: [] }) as Store

const PLUGIN = `
const s = (globalThis[${JSON.stringify(KEY)}] ??= { recall: '', writes: [] })
export function createProvider() {
  return {
    name: 'corerec',
    isAvailable: () => true,
    initialize() {},
    getToolSchemas: () => [],
    prefetch() { return s.recall },
    onMemoryWrite(action, target, content, metadata) {
      s.writes.push({ action, target, content, old_text: (metadata && metadata.old_text) ?? null })
    },
    shutdown() {}
  }
}
`
interface NudgeCase {
  name: string
  config: string
  turns: number
  memory_call_turns: number[]
  review_turns: number[]
  requests: Array<{ turn: number; kind: string; roles?: string[]; tools?: string[] }>
  message_rows: Array<{ role: string; content: string | null }>
  memory_md: string | null
}
// scripts/golden/memory_nudge.py: upstream's review turns for an interval, with and without a memory call between.
const NUDGE = (
  JSON.parse(readFileSync(join(__dirname, '../../../test/fixtures/upstream/memory-nudge/cases.json'), 'utf8')) as {
    cases: NudgeCase[]
  }
).cases.filter((c) => c.name.startsWith('interval 3'))
const OUR_TOOLS = ['delegate_task', 'memory', 'process', 'terminal']
const BATCH = golden.batches.find((b) => b.name === 'free room and add in one call')!

/** A memory review's call: it ends the conversation with its own user message (the nudge turns all start `TURN `). */
const isReview = (req: RecordedRequest) => {
  const text = turnText(req)
  return messagesOf(req).some((m) => String(m.content).startsWith('TURN ')) && !text.startsWith('TURN ')
}

function reply(req: RecordedRequest): ScriptReply {
  const text = turnText(req)
  const turnNo = (req: RecordedRequest) => messagesOf(req).filter((m) => String(m.content).startsWith('TURN ')).length
  // The memory review (memory.nudge_interval) ends with its own user message; it saves one note, then answers.
  if (isReview(req) && lastOf(req)?.role === 'user')
    return {
      toolCalls: [
        {
          id: `r${turnNo(req)}`,
          name: 'memory',
          arguments: { action: 'add', target: 'memory', content: `Saved by the review after turn ${turnNo(req)}.` }
        }
      ]
    }
  const turn = /^TURN (\d+): hello$/.exec(text)
  if (turn) {
    const n = Number(turn[1])
    return n === memoryCallTurn && !messagesOf(req).some((m) => m.role === 'tool')
      ? {
          toolCalls: [
            {
              id: `m${n}`,
              name: 'memory',
              arguments: { action: 'add', target: 'memory', content: `Saved in turn ${n}.` }
            }
          ]
        }
      : { text: `Answer ${n}.` }
  }
  if (lastOf(req)?.role === 'tool') return { text: 'done' }
  if (text === 'write both' && toolNames(req).includes('memory'))
    return {
      toolCalls: [
        { id: 'm1', name: 'memory', arguments: { action: 'add', target: 'memory', content: 'new memory fact' } },
        { id: 'm2', name: 'memory', arguments: { action: 'add', target: 'user', content: 'new user fact' } }
      ]
    }
  if (text === 'batch')
    return {
      toolCalls: [{ id: 'b1', name: 'memory', arguments: { target: BATCH.target, operations: BATCH.operations } }]
    }
  return { text: 'ok' }
}

let rig: Rig
/** The desk turn whose reply first calls the memory tool (the nudge cases). */
let memoryCallTurn = 0
const profiles = golden.flags.map((_, i) => `flags${i}`)

function seed(profile: string, config: string, files: Record<string, string>): void {
  rig.writeConfig(profile, `terminal:\n  enabled: true\n${config}`)
  const dir = join(rig.home(profile), 'memories')
  mkdirSync(dir, { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o600 })
}

function filesOf(profile: string): Record<string, string> {
  const dir = join(rig.home(profile), 'memories')
  const out: Record<string, string> = {}
  for (const name of readdirSync(dir).sort())
    if (name.endsWith('.md')) out[name] = readFileSync(join(dir, name), 'utf8')
  return out
}

async function turn(profile: string, text: string): Promise<RecordedRequest[]> {
  const before = rig.chats().length
  const finished = rig.events.filter((e) => e.event === 'turn.finished').length
  const res = await rig.host!.dispatcher.invoke('sessions.start', { profile, text })
  expect(res.ok, JSON.stringify(res)).toBe(true)
  await waitUntil(() => rig.events.filter((e) => e.event === 'turn.finished').length > finished)
  return rig.chats().slice(before)
}

beforeAll(async () => {
  rig = await makeRig(reply, ['fence', 'batch', ...profiles, ...NUDGE.map((_, i) => `nudge${i}`)])
  writePlugin(rig.root, 'corerec', PLUGIN)
  seed('fence', 'memory:\n  provider: corerec\n', {})
  seed('batch', `memory:\n  provider: corerec\n${BATCH.config.replace(/^memory:\n/, '')}`, BATCH.files)
  golden.flags.forEach((f, i) => seed(profiles[i]!, f.config, f.files))
  // a reasoning setting, which the review's calls must carry as the turn's do
  NUDGE.forEach((c, i) => seed(`nudge${i}`, `${c.config}agent:\n  reasoning_effort: high\n`, {}))
  await rig.start()
})
afterAll(async () => {
  await rig.close()
  delete (globalThis as Record<string, unknown>)[KEY]
})

describe('recalled memory reaches the model fenced as upstream fences it', () => {
  it.each(golden.context_blocks.map((c, i) => [i, c] as const))('recall %i', async (i, c) => {
    store().recall = c.raw
    const [first] = await turn('fence', `question ${i}`)
    const sent = String(lastOf(first!)?.content)
    expect(sent).toBe(c.block ? `question ${i}\n\n${c.block}` : `question ${i}`)
    // Whatever the recalled text says, exactly one fence opens and closes, at the end of the message.
    if (c.block) expect(sent.match(/<\/?\s*memory-context\s*>/giu)).toEqual(['<memory-context>', '</memory-context>'])
  })
})

describe('memory_enabled / user_profile_enabled / agent.disabled_toolsets', () => {
  it.each(golden.flags.map((f, i) => [f.name, f, i] as const))('%s', async (name, f, i) => {
    const profile = profiles[i]!
    const [first] = await turn(profile, 'write both')
    const offered = toolNames(first!).filter((t) => OUR_TOOLS.includes(t))
    const system = String(messagesOf(first!)[0]?.content ?? '')
    expect(system.includes('MEMORY (your personal notes)') && system.includes(f.files['MEMORY.md']!)).toBe(
      f.memory_block
    )
    expect(system.includes('USER PROFILE (who the user is)') && system.includes(f.files['USER.md']!)).toBe(f.user_block)
    if (name === 'both_off') {
      // Deliberate difference: upstream still lists `memory` with both flags off, and every call answers
      // "Memory is not available"; Caduceus does not offer a tool that can only refuse. No file changes either way.
      expect(offered).toEqual(f.tools.filter((t) => t !== 'memory'))
      expect(filesOf(profile)).toEqual(f.files)
      return
    }
    expect(offered).toEqual(f.tools)
    // The golden wrote both files through the tool; where the tool is not offered nothing can be written.
    expect(filesOf(profile)).toEqual(f.tools.includes('memory') ? f.files_after : f.files)
  })
})

describe('the memory tool: upstream parameters and an operations batch', () => {
  it('offers upstream’s schema and applies a batch as upstream answers it, mirroring each item', async () => {
    store().writes = []
    const reqs = await turn('batch', 'batch')
    const schema = ((reqs[0]!.body?.tools ?? []) as Array<{ function: { name: string; parameters: unknown } }>).find(
      (t) => t.function.name === 'memory'
    )!.function.parameters
    const strip = (n: unknown): unknown =>
      Array.isArray(n)
        ? n.map(strip)
        : n && typeof n === 'object'
          ? Object.fromEntries(
              Object.entries(n)
                .filter(([k]) => k !== 'description')
                .map(([k, v]) => [k, strip(v)])
            )
          : n
    expect(strip(schema)).toEqual((golden as unknown as { schema: unknown }).schema)
    const toolMsg = messagesOf(reqs.at(-1)!).find((m) => m.role === 'tool')!
    expect(JSON.parse(String(toolMsg.content))).toEqual(BATCH.answer)
    expect(filesOf('batch')).toEqual({ ...BATCH.files, ...BATCH.after })
    await waitUntil(() => store().writes.length === BATCH.mirrored.length)
    expect(store().writes).toEqual(BATCH.mirrored)
  })
})

describe('memory.nudge_interval: the background memory review, as upstream runs it', () => {
  it.each(NUDGE.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    const profile = `nudge${i}`
    memoryCallTurn = c.memory_call_turns[0] ?? 0
    const before = rig.chats().length
    const withTools = () =>
      rig
        .chats()
        .slice(before)
        .filter((q) => toolNames(q).length > 0)
    const reviews = () => withTools().filter(isReview)
    let sessionId = ''
    for (let t = 1; t <= c.turns; t++) {
      const finished = rig.events.filter((e) => e.event === 'turn.finished').length
      const res = sessionId
        ? await rig.host!.dispatcher.invoke('sessions.resume', { profile, sessionId, text: `TURN ${t}: hello` })
        : await rig.host!.dispatcher.invoke('sessions.start', { profile, text: `TURN ${t}: hello` })
      expect(res.ok, JSON.stringify(res)).toBe(true)
      sessionId ||= (res as { output: { sessionId: string } }).output.sessionId
      await waitUntil(() => rig.events.filter((e) => e.event === 'turn.finished').length > finished)
      // A review upstream runs after this turn: both of its calls (the note, then the answer) come before the next turn.
      const due = c.requests.filter((r) => r.kind === 'review' && r.turn <= t).length
      await waitUntil(() => reviews().length >= due)
    }
    // Every model call with the roles of its messages, as upstream's (Caduceus sends no system message here: no persona,
    // memory still empty when the session began), main turns and reviews alike; the review offers the turn's tools.
    const kind = (q: RecordedRequest) => (isReview(q) ? 'review' : 'main')
    const strip = (roles: string[]) => roles.filter((r) => r !== 'system')
    expect(withTools().map((q) => [kind(q), strip(messagesOf(q).map((m) => m.role))])).toEqual(
      c.requests.filter((r) => r.kind !== 'auxiliary').map((r) => [r.kind, strip(r.roles!)])
    )
    expect(new Set(reviews().map((q) => toolNames(q).join()))).toEqual(new Set([toolNames(withTools()[0]!).join()]))
    // Past its messages (and streaming, which only the turn does) the review's request is the turn's: model, tools,
    // reasoning and reply cap come from one place (agent/chat-request.ts).
    const setup = (q: RecordedRequest) =>
      JSON.stringify({ ...(q.body as object), messages: undefined, stream: undefined, stream_options: undefined })
    expect(new Set(withTools().map(setup)).size).toBe(1)
    // What the review wrote, and nothing of it stored in the session: only the turns' own rows.
    expect(filesOf(profile)['MEMORY.md']).toBe(c.memory_md)
    // The Memory page's activity feed shows each review's write, under the review's own turn id.
    const events = await rig.host!.dispatcher.invoke('memory.events', { profile })
    const items = (events as { output: { items: Array<{ kind: string; turnId: string | null; summary: string }> } })
      .output.items
    expect(
      items.filter((e) => e.kind === 'tool_call' && e.turnId?.startsWith('memory-review-')).map((e) => e.summary)
    ).toEqual(c.review_turns.map((t) => expect.stringContaining(`Saved by the review after turn ${t}.`)).reverse())
    const rows = await rig.host!.dispatcher.invoke('sessions.messages', { profile, sessionId, limit: 50 })
    const stored = (rows as { output: { items: Array<{ role: string; content: string | null }> } }).output.items
    expect(
      stored.filter((m) => m.role !== 'tool' && !(m.role === 'assistant' && !m.content)).map((m) => m.content)
    ).toEqual(
      c.message_rows.filter((m) => m.role !== 'tool' && !(m.role === 'assistant' && !m.content)).map((m) => m.content)
    )
  })
})
