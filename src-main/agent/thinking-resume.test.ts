// Anthropic extended-thinking blocks across a restart: a session whose assistant rows carry thinking blocks (upstream's
// `reasoning_details`, signatures included) is resumed by a fresh agent, and its next request to a real local HTTP
// server speaking the Anthropic wire sends them back as upstream does. Golden: scripts/golden/thinking_resume.py
// (rows written with upstream's SessionDB as its loop flushes them; upstream's converter's request for the resume).
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from '../store'
import { Agent } from './agent'
import { sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { recordingTool, testRuntime } from './test-fixtures/kit'
import { ToolRegistry } from './tools/registry'

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/upstream/thinking-resume')
const golden = JSON.parse(readFileSync(join(FIXTURE, 'golden.json'), 'utf8')) as {
  session_id: string
  anthropic_messages: Array<{ role: string; content: unknown }>
}

const ant = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
/** An Anthropic reply: the given blocks (thinking with its signature, tool_use, text) streamed, then message_stop. */
function reply(blocks: Array<Record<string, unknown>>, stop: string): string {
  let out = ant('message_start', { message: { id: 'm', model: 'claude-x', usage: { input_tokens: 5 } } })
  blocks.forEach((b, index) => {
    if (b.type === 'thinking') {
      out += ant('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      out += ant('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: b.thinking } })
      out += ant('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } })
    } else if (b.type === 'tool_use') {
      out += ant('content_block_start', { index, content_block: { ...b, input: {} } })
      out += ant('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) }
      })
    } else {
      out += ant('content_block_start', { index, content_block: { type: 'text', text: '' } })
      out += ant('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } })
    }
    out += ant('content_block_stop', { index })
  })
  return (
    out + ant('message_delta', { delta: { stop_reason: stop }, usage: { output_tokens: 3 } }) + ant('message_stop', {})
  )
}

let provider: RouteServer
let dir: string
let store: SessionStore
afterEach(async () => {
  await provider?.close()
  store?.close()
  rmSync(dir, { recursive: true, force: true })
})

/**
 * `direct`: the local server stands in for Anthropic's own API — upstream tells it apart by "anthropic.com" anywhere
 * in the base URL, so the URL carries it in its path; otherwise it is a third-party endpoint of the same protocol.
 */
async function setUp(replies: string[], direct = true) {
  provider = await startRouteServer((_req, res, n) => {
    sse(res)
    res.end(replies[Math.min(n, replies.length) - 1])
  })
  const tools = new ToolRegistry()
  tools.register(recordingTool('terminal', () => 'a.txt\nb.txt').def)
  /** A fresh agent on the store (a restart: nothing in memory, history read from state.db). */
  const agent = (sessionId: string) =>
    new Agent({
      profile: 'default',
      sessionId,
      store,
      runtime: testRuntime(direct ? `${provider.baseUrl}/anthropic.com` : provider.baseUrl, {
        provider: 'anthropic',
        apiMode: 'anthropic_messages',
        model: 'claude-x'
      }),
      tools,
      maxIterations: 8,
      gatewaySessionKey: `agent:main:desk:${sessionId}`,
      reasoningConfig: { enabled: true, effort: 'low' }
    })
  const assistants = (n: number) =>
    (JSON.parse(provider.bodies[n]!) as { messages: Array<{ role: string; content: unknown }> }).messages.filter(
      (m) => m.role === 'assistant'
    )
  return { agent, assistants }
}

describe('Anthropic thinking blocks after a restart', () => {
  it("resuming a session upstream wrote sends its thinking back with the signatures, as upstream's request does", async () => {
    dir = mkdtempSync(join(tmpdir(), 'cad-think-'))
    copyFileSync(join(FIXTURE, 'state.db'), join(dir, 'state.db'))
    store = new SessionStore(join(dir, 'state.db'))
    const { agent, assistants } = await setUp([reply([{ type: 'text', text: 'Nothing new.' }], 'end_turn')])
    const result = await agent(golden.session_id).runTurn('RESUMED: and now?')
    expect(result.status).toBe('completed')
    // the assistant messages exactly as upstream's converter sends them: the signed thinking and the redacted block
    // on the latest assistant message, none on the earlier tool round
    expect(assistants(0)).toEqual(golden.anthropic_messages.filter((m) => m.role === 'assistant'))
  })

  it('a third-party endpoint of the same protocol gets no thinking blocks: it cannot check their signatures', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cad-think-'))
    copyFileSync(join(FIXTURE, 'state.db'), join(dir, 'state.db'))
    store = new SessionStore(join(dir, 'state.db'))
    const { agent, assistants } = await setUp([reply([{ type: 'text', text: 'Nothing new.' }], 'end_turn')], false)
    expect((await agent(golden.session_id).runTurn('RESUMED: and now?')).status).toBe('completed')
    const sent = assistants(0)
    expect(sent.length).toBeGreaterThan(0)
    for (const m of sent) for (const b of m.content as Array<{ type: string }>) expect(b.type).not.toMatch(/thinking/)
  })

  it('a session this app wrote keeps them too: the rows carry them and a fresh agent sends them back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cad-think-'))
    store = new SessionStore(join(dir, 'state.db'))
    const { agent, assistants } = await setUp([
      reply(
        [
          { type: 'thinking', thinking: 'List it first.', signature: 'SIG-A' },
          { type: 'tool_use', id: 'toolu_1', name: 'terminal', input: { command: 'ls' } }
        ],
        'tool_use'
      ),
      reply(
        [
          { type: 'thinking', thinking: 'Two files.', signature: 'SIG-B' },
          { type: 'text', text: 'Two files.' }
        ],
        'end_turn'
      ),
      reply([{ type: 'text', text: 'Still two.' }], 'end_turn')
    ])
    expect((await agent('S1').runTurn('what is here?')).status).toBe('completed')
    // within the turn, the tool round's thinking went back with its tool_use
    expect(assistants(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'List it first.', signature: 'SIG-A' },
          { type: 'tool_use', id: 'toolu_1', name: 'terminal', input: { command: 'ls' } }
        ]
      }
    ])
    expect((await agent('S1').runTurn('and now?')).status).toBe('completed')
    expect(assistants(2).map((m) => m.content)).toEqual([
      [{ type: 'tool_use', id: 'toolu_1', name: 'terminal', input: { command: 'ls' } }],
      [
        { type: 'thinking', thinking: 'Two files.', signature: 'SIG-B' },
        { type: 'text', text: 'Two files.' }
      ]
    ])
  })
})
