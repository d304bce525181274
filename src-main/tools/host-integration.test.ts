// End to end through the real host: the terminal tool is registered only when config.yaml opts in, and a
// notify-enabled background process's completion is saved as `process_complete` and runs the next turn.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider, type ScriptReply } from '../agent/scripted'
import { createHost, type Host } from '../host'
import { createLogger } from '../host/log/log'
import { nodeCmd, waitUntil } from './test-fixtures/helpers'

let root: string | undefined
let host: Host | undefined
let provider: ScriptedProvider | undefined
let finishedTurns = 0

afterEach(async () => {
  await host?.close()
  await provider?.close()
  if (root) rmSync(root, { recursive: true, force: true })
  host = provider = root = undefined
})

const lastMessage = (req: RecordedRequest) =>
  ((req.body?.messages ?? []) as Array<{ role: string; content: unknown }>).at(-1)

function reply(req: RecordedRequest): ScriptReply {
  if (String(req.body?.messages?.[0]?.content ?? '').startsWith('You compress')) return { text: 'earlier turns' }
  const last = lastMessage(req)
  // Late, so the process ends while this turn still runs: its notice must still follow the turn's reply.
  if (last?.role === 'tool') return { text: 'Started it.', delayMs: 600 }
  const text = typeof last?.content === 'string' ? last.content : ''
  if (text === 'build in the background') {
    return {
      toolCalls: [
        {
          id: 'call_1',
          name: 'terminal',
          arguments: { command: nodeCmd('console.log("BUILD OK")'), background: true, notify_on_complete: true }
        }
      ]
    }
  }
  if (text === 'start a server')
    return {
      toolCalls: [
        {
          id: 'call_s',
          name: 'terminal',
          arguments: { command: nodeCmd('setInterval(() => {}, 1000)'), background: true }
        }
      ]
    }
  if (text === 'list processes')
    return { toolCalls: [{ id: 'call_l', name: 'process', arguments: { action: 'list' } }] }
  if (text.startsWith('[Background process')) return { text: 'The build finished.' }
  if (text === 'are you there') return { text: 'Yes.' }
  return { text: 'ok' }
}

async function boot(terminalYaml: string): Promise<Host> {
  root = mkdtempSync(join(tmpdir(), 'cad-tools-host-'))
  provider = await startScriptedProvider({ handler: reply })
  writeFileSync(
    join(root, 'config.yaml'),
    `model:\n  default: scripted-model\n  provider: custom\n  base_url: ${provider.baseUrl}\n${terminalYaml}`
  )
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, log: createLogger() })
  finishedTurns = 0
  host.bus.subscribe((e) => {
    if (e.event === 'turn.finished') finishedTurns++
  })
  return host
}

const toolNames = (req: RecordedRequest) =>
  ((req.body?.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name)

describe('terminal tool in the host', () => {
  it('is not offered to the model unless terminal.enabled is true', async () => {
    const h = await boot('')
    const r = await h.dispatcher.invoke('sessions.start', { profile: 'default', text: 'hello' })
    expect(r.ok).toBe(true)
    await waitUntil(() => provider!.requests.some((q) => q.path.endsWith('/chat/completions')))
    const req = provider!.requests.find((q) => q.path.endsWith('/chat/completions'))!
    expect(toolNames(req)).not.toContain('terminal')
    expect(toolNames(req)).not.toContain('process')
    await waitUntil(() => finishedTurns === 1)
  })

  it("delivers a finished background process as the session's next turn", async () => {
    const h = await boot('terminal:\n  enabled: true\n')
    const r = await h.dispatcher.invoke('sessions.start', { profile: 'default', text: 'build in the background' })
    expect(r.ok).toBe(true)
    const db = new Database(join(root!, 'state.db'), { readonly: true })
    try {
      const rows = () =>
        db.prepare('SELECT role, content, display_kind FROM messages ORDER BY id').all() as Array<{
          role: string
          content: string | null
          display_kind: string | null
        }>
      // Turn 1 starts the process; turn 2 is the delivered completion.
      await waitUntil(() => finishedTurns === 2)
      const all = rows()
      const notice = all.find((m) => m.display_kind === 'process_complete')!
      expect(notice.role).toBe('user')
      expect(notice.content).toContain('exit code 0')
      expect(notice.content).toContain('BUILD OK')
      expect(all.indexOf(notice)).toBeLessThan(all.findIndex((m) => m.content === 'The build finished.'))
      // the order upstream replays on resume (test/fixtures/upstream/resume-loop: a completion after its turn)
      expect(all.indexOf(notice)).toBeGreaterThan(all.findIndex((m) => m.content === 'Started it.'))
      expect(toolNames(provider!.requests.find((q) => q.path.endsWith('/chat/completions'))!)).toEqual(
        expect.arrayContaining(['terminal', 'process'])
      )
    } finally {
      db.close()
    }
  })

  // The agent moves to the continuation's id when it compresses; the process keeps the id it started under.
  it('the process tool still lists a process started before the conversation compressed', async () => {
    const compress = 'compression:\n  enabled: true\n  threshold: 0.01\n  protect_last_n: 2\n'
    const h = await boot(`  context_length: 256\nterminal:\n  enabled: true\n${compress}`)
    const r = await h.dispatcher.invoke('sessions.start', { profile: 'default', text: 'start a server' })
    expect(r.ok, JSON.stringify(r)).toBe(true)
    await waitUntil(() => finishedTurns === 1)
    const sessionId = (r as { output: { sessionId: string } }).output.sessionId
    const r2 = await h.dispatcher.invoke('sessions.resume', { profile: 'default', sessionId, text: 'list processes' })
    expect(r2.ok, JSON.stringify(r2)).toBe(true)
    await waitUntil(() => finishedTurns === 2)
    const toolResult = (id: string) => {
      const req = provider!.requests.find((q) =>
        ((q.body?.messages ?? []) as Array<{ role: string; tool_call_id?: string }>).some(
          (m) => m.role === 'tool' && m.tool_call_id === id
        )
      )!
      const msg = (req.body!.messages as Array<{ role: string; tool_call_id?: string; content: string }>).find(
        (m) => m.role === 'tool' && m.tool_call_id === id
      )!
      return JSON.parse(msg.content) as Record<string, unknown>
    }
    const started = toolResult('call_s').process_id as string
    const db = new Database(join(root!, 'state.db'), { readonly: true })
    try {
      // the process started in a segment that compression has ended since
      const ended = db.prepare("SELECT id FROM sessions WHERE end_reason = 'compression'").all() as Array<{
        id: string
      }>
      const startedIn = db
        .prepare("SELECT session_id AS s FROM messages WHERE role = 'tool' AND content LIKE ?")
        .get(`%${started}%`) as { s: string }
      expect(ended.map((e) => e.id)).toContain(startedIn.s)
    } finally {
      db.close()
    }
    const listed = toolResult('call_l').processes as Array<{ process_id: string; status: string }>
    expect(listed).toEqual([expect.objectContaining({ process_id: started, status: 'running' })])
  })

  it('saves the notice and runs its turn with no turn in between, even one sent the moment the parent turn ends', async () => {
    // A message sent in the tick the parent's turn ends (its turn.finished listener) races the notice for the idle
    // conversation. Whoever wins, the notice and the turn answering it must stay together: a turn that began after
    // "idle" but before the notice's append would have the notice among its rows.
    const h = await boot('terminal:\n  enabled: true\ndisplay:\n  busy_input_mode: queue\n')
    let sessionId = ''
    let sent = false
    h.bus.subscribe((e) => {
      if (e.event !== 'turn.finished' || sent) return
      sent = true
      void h.dispatcher.invoke('sessions.resume', {
        profile: 'default',
        sessionId,
        text: 'are you there',
        whileBusy: true
      })
    })
    const r = await h.dispatcher.invoke('sessions.start', { profile: 'default', text: 'build in the background' })
    if (!r.ok) throw new Error(r.error.message)
    sessionId = (r.output as { sessionId: string }).sessionId
    await waitUntil(() => finishedTurns === 3)
    const db = new Database(join(root!, 'state.db'), { readonly: true })
    try {
      const rows = db
        .prepare("SELECT role, COALESCE(display_kind, content) AS what FROM messages WHERE role <> 'tool' ORDER BY id")
        .all() as Array<{ role: string; what: string }>
      const replies = rows.filter((m) => m.role === 'assistant').map((m) => m.what)
      expect(replies.slice(-3)).toEqual(['Started it.', expect.any(String), expect.any(String)])
      // every message is followed by the reply that answers it
      const pairs = rows.slice(-4).map((m) => `${m.role}:${m.what}`)
      expect([
        ['user:process_complete', 'assistant:The build finished.', 'user:are you there', 'assistant:Yes.'],
        ['user:are you there', 'assistant:Yes.', 'user:process_complete', 'assistant:The build finished.']
      ]).toContainEqual(pairs)
    } finally {
      db.close()
    }
  })
})
