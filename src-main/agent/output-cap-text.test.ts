// A text reply cut off by the output cap (finish_reason "length", no tool calls), through the whole turn: a real
// local HTTP server with scripted replies → agent → real state.db. Like upstream, each part is its own assistant
// row, a user row asks for the rest, and the turn's answer is the parts joined.
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

const cut = (text: string) => `${chunk({ content: text })}${chunk({}, 'length')}data: [DONE]\n\n`
const done = (text: string) => `${chunk({ content: text }, 'stop')}data: [DONE]\n\n`

async function setUp(replies: string[], maxTokens?: number, maxReplyChars?: number) {
  kit = await makeKit()
  provider = await startRouteServer((_req, res, n) => {
    sse(res)
    res.end(replies[n - 1] ?? done('(extra)'))
  })
  const agent = kit.makeAgent({
    runtime: testRuntime(provider.baseUrl, { maxTokens, limits: maxReplyChars ? { maxReplyChars } : undefined })
  })
  const sent = () =>
    provider.bodies.map(
      (b) => JSON.parse(b) as { max_tokens?: number; messages: Array<{ role: string; content: unknown }> }
    )
  return { agent, sent }
}

describe('a text reply cut off by the output cap', () => {
  it('asks the model to continue and answers with the parts joined; each part is its own row', async () => {
    const { agent, sent } = await setUp([cut('The first half, '), cut('the second half, '), done('and the end.')], 1000)
    const result = await agent.runTurn('write it', { onDelta: (d) => kit.deltas.push(d) })
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('The first half, the second half, and the end.')
    const rows = kit.messages('S1').map((r) => [r.role, r.content, r.finish_reason])
    expect(rows.map((r) => [r[0], r[2]])).toEqual([
      ['user', null],
      ['assistant', 'length'],
      ['user', null],
      ['assistant', 'length'],
      ['user', null],
      ['assistant', 'stop']
    ])
    expect(rows[1]![1]).toBe('The first half, ')
    expect(rows[2]![1]).toMatch(/^\[System: .*cut your last reply short/)
    expect(rows[5]![1]).toBe('and the end.')
    // the request to go on shows in the transcript as a notice, not as the user's words
    expect(kit.messages('S1')[2]!.display_kind).toBe('continuation_notice')
    // the continuation request carries the cut-off part and the request to go on, with a larger cap
    const bodies = sent()
    expect(bodies.map((b) => b.max_tokens)).toEqual([1000, 2000, 4000])
    expect(bodies[1]!.messages.slice(-2).map((m) => m.role)).toEqual(['assistant', 'user'])
    expect(bodies[1]!.messages.at(-2)!.content).toBe('The first half, ')
  })

  it('is bounded: after three requests to continue the turn ends partial (not completed), its text kept', async () => {
    const { agent, sent } = await setUp([cut('a'), cut('b'), cut('c'), cut('d'), cut('e')])
    const result = await agent.runTurn('write it', { onDelta: (d) => kit.deltas.push(d) })
    // upstream: completed false, partial true, the joined text as its final response
    expect(result.status).toBe('error')
    expect(result.exitReason).toBe('partial')
    expect(result.partial).toBe(true)
    expect(result.error).toBe(
      'the reply was still cut off by the output cap after 3 requests to continue; it ends there'
    )
    expect(result.finalText).toBe('abcd')
    expect(sent()).toHaveLength(4)
    const notices = kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text)
    expect(notices.at(-1)).toBe(
      'The reply was still cut off by the output cap after 3 requests to continue; it ends there.'
    )
    expect(
      kit
        .messages('S1')
        .filter((r) => r.role === 'assistant')
        .map((r) => r.finish_reason)
    ).toEqual(['length', 'length', 'length', 'length'])
  })

  it('a continuation that calls tools keeps the earlier parts in the answer, as upstream does', async () => {
    const withTool =
      chunk({ content: 'Cap part 2. ' }) +
      chunk({
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } }
        ]
      }) +
      `${chunk({}, 'tool_calls')}data: [DONE]\n\n`
    const { agent } = await setUp([cut('Cap part 1. '), withTool, done('Final words.')])
    const terminal = recordingTool('terminal')
    kit.tools.register(terminal.def)
    const result = await agent.runTurn('write it')
    expect(terminal.calls).toEqual([{ command: 'ls' }])
    expect(result.status).toBe('completed')
    // upstream's final response for the same script: the cut part, then the final reply (not the text beside the
    // tool call, which stays in its own row)
    expect(result.finalText).toBe('Cap part 1. Final words.')
    expect(kit.messages('S1').map((r) => [r.role, r.finish_reason])).toEqual([
      ['user', null],
      ['assistant', 'length'],
      ['user', null],
      ['assistant', 'tool_calls'],
      ['tool', null],
      ['assistant', 'stop']
    ])
  })

  it('Stop during the continuation ends the turn interrupted without asking again', async () => {
    const { agent, sent } = await setUp([cut('The first half, '), done('never asked')])
    const result = await agent.runTurn('write it', {
      onDelta: (d) => {
        if (d.kind === 'notice') agent.interrupt()
      }
    })
    expect(result.status).toBe('interrupted')
    expect(result.finalText).toBe('The first half, ')
    expect(sent()).toHaveLength(1)
  })

  it('a reply Caduceus cut at provider_limits.max_reply_chars is not continued', async () => {
    const { agent, sent } = await setUp([done('x'.repeat(500))], undefined, 100)
    const result = await agent.runTurn('write it')
    expect(result.status).toBe('completed')
    expect(sent()).toHaveLength(1)
    expect(kit.messages('S1').map((r) => [r.role, r.finish_reason])).toEqual([
      ['user', null],
      ['assistant', 'length']
    ])
  })
})
