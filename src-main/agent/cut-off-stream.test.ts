// A provider stream cut off before its end-of-reply marker (the connection dropped mid-body), through the whole turn:
// a real local HTTP server speaking each wire protocol → agent → real state.db. As upstream does (observed on its loop
// against a scripted server that drops the connection, scripts/golden/stream_cutoff.py): text that reached the user is
// kept as its own row (finish_reason "length") and the model is asked to go on, at most 3 times (4 parts, then the turn
// ends partial); a stream cut inside tool calls is asked for again (2 more times) before that; one cut before any text
// is asked for again in rounds of 3 with growing waits between rounds (18 attempts at most); none of a cut reply's
// tool calls ever runs. A body that ends normally without the marker is a complete reply, as upstream takes it.
import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { RuntimeConfig } from './providers/types'
import { chunk, sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'
import type { AgentOptions } from './types'
import { NO_REPLY_TEXT } from './empty-reply'

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

const ant = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
const antStart = ant('message_start', { message: { id: 'm1', model: 'claude', usage: { input_tokens: 10 } } })
const antText = (text: string) =>
  ant('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
  ant('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
const antDone = (text: string) =>
  antStart +
  antText(text) +
  ant('content_block_stop', { index: 0 }) +
  ant('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }) +
  ant('message_stop', {})
/** A whole Anthropic reply without a content block, ended with `reason`. */
const antEmpty = (reason: string) =>
  antStart +
  ant('message_delta', { delta: { stop_reason: reason }, usage: { output_tokens: 0 } }) +
  ant('message_stop', {})
const done = (text: string) => `${chunk({ content: text }, 'stop')}data: [DONE]\n\n`

/** A reply the server sends whole, or (`drop`) whose connection it destroys once the bytes are out. */
type Reply = string | { drop: string }
const drop = (body: string): Reply => ({ drop: body })

function send(res: ServerResponse, reply: Reply): void {
  sse(res)
  if (typeof reply === 'string') return void res.end(reply)
  res.write(reply.drop, () => setTimeout(() => res.socket?.destroy(), 20))
}

/** An agent on the route server; request n gets `replies[n - 1]` (the last one again after the list ends). */
async function setUp(apiMode: RuntimeConfig['apiMode'], replies: Reply[], over: Partial<AgentOptions['runtime']> = {}) {
  kit = await makeKit()
  const terminal = recordingTool('terminal')
  kit.tools.register(terminal.def)
  provider = await startRouteServer((_req, res, n) => send(res, replies[Math.min(n, replies.length) - 1]!))
  const agent = kit.makeAgent({
    runtime: testRuntime(provider.baseUrl, {
      provider: apiMode === 'anthropic_messages' ? 'anthropic' : 'custom',
      apiMode,
      ...over
    })
  })
  const sent = () =>
    provider.bodies.map((b) => (JSON.parse(b) as { messages: Array<{ role: string; content: unknown }> }).messages)
  return { agent, terminal, sent }
}

const rows = () => kit.messages('S1').map((r) => [r.role, r.content, r.finish_reason])
const DROP_PROMPT = /^\[System: The connection dropped while your last reply was streaming, so it is cut short\./

describe('a provider stream cut off mid-reply', () => {
  it('OpenAI-style, the connection dropped after some text: the part is kept and the model asked to go on', async () => {
    // (the part opens with inline reasoning: kept out of the part, as upstream strips a cut reply's parts)
    const { agent, sent } = await setUp('chat_completions', [
      drop(chunk({ role: 'assistant' }) + chunk({ content: '<think>plan</th' }) + chunk({ content: 'ink>Part one, ' })),
      done('part two.')
    ])
    const result = await agent.runTurn('say it', { onDelta: (d) => kit.deltas.push(d) })
    expect(result.status).toBe('completed')
    expect(kit.deltas.filter((d) => d.kind === 'text').map((d) => d.text)).toEqual(['Part one, ', 'part two.'])
    // upstream's answer: the kept part (trimmed, as upstream keeps it) joined with the rest
    expect(result.finalText).toBe('Part one,part two.')
    expect(provider.hits).toBe(2)
    const saved = rows()
    expect(saved.map((r) => [r[0], r[2]])).toEqual([
      ['user', null],
      ['assistant', 'length'],
      ['user', null],
      ['assistant', 'stop']
    ])
    expect(saved[1]![1]).toBe('Part one,')
    expect(saved[2]![1]).toMatch(DROP_PROMPT)
    expect(kit.messages('S1')[2]!.display_kind).toBe('continuation_notice')
    // the second request carries the kept part and the request to go on
    expect(
      sent()[1]!
        .slice(-2)
        .map((m) => [m.role, typeof m.content === 'string' ? m.content.slice(0, 9) : m.content])
    ).toEqual([
      ['assistant', 'Part one,'],
      ['user', '[System: ']
    ])
    expect(kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text)).toEqual([
      "The provider's stream broke off mid-reply; asking the model to continue (1/3)."
    ])
  })

  it('bounded like upstream: 4 parts, then the turn ends partial with the joined text and no extra rows', async () => {
    let n = 0
    const { agent } = await setUp('chat_completions', [])
    provider.route = (_req, res) => send(res, drop(chunk({ content: `Attempt ${++n}. ` })))
    const result = await agent.runTurn('say it')
    expect(provider.hits).toBe(4)
    expect(result.status).toBe('error')
    expect(result.exitReason).toBe('partial')
    expect(result.partial).toBe(true)
    expect(result.error).toBe(
      'the reply was still cut off by a dropped stream after 3 requests to continue; it ends there'
    )
    expect(result.finalText).toBe('Attempt 1.Attempt 2.Attempt 3.Attempt 4.')
    expect(rows().map((r) => [r[0], r[0] === 'assistant' ? r[1] : null, r[2]])).toEqual([
      ['user', null, null],
      ['assistant', 'Attempt 1.', 'length'],
      ['user', null, null],
      ['assistant', 'Attempt 2.', 'length'],
      ['user', null, null],
      ['assistant', 'Attempt 3.', 'length'],
      ['user', null, null],
      ['assistant', 'Attempt 4.', 'length']
    ])
  })

  it('Stop while it asks to go on ends the turn interrupted, without another request', async () => {
    const { agent } = await setUp('chat_completions', [drop(chunk({ content: 'Part one, ' })), done('never')])
    const result = await agent.runTurn('say it', {
      onDelta: (d) => {
        if (d.kind === 'notice') agent.interrupt()
      }
    })
    expect(result.status).toBe('interrupted')
    expect(result.finalText).toBe('Part one,')
    expect(provider.hits).toBe(1)
    expect(rows()).toEqual([
      ['user', 'say it', null],
      ['assistant', 'Part one,', 'length']
    ])
  })

  it('OpenAI-style, cut inside 2 tool calls: asked again twice, then kept with a note; no tool call runs', async () => {
    const cutTools =
      chunk({ content: 'Cleaning up.' }) +
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'terminal' } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls /tmp"}' } }] }) +
      chunk({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'terminal' } }] }) +
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"command":"rm -rf /tmp/x' } }] })
    const { agent, terminal, sent } = await setUp('chat_completions', [
      drop(cutTools),
      drop(cutTools),
      drop(cutTools),
      done('All done.')
    ])
    const result = await agent.runTurn('tidy /tmp')
    expect(terminal.calls).toEqual([])
    expect(result.status).toBe('completed')
    expect(provider.hits).toBe(4)
    // the first three are the same request; the fourth carries the kept part and the request to go on
    const bodies = sent()
    expect(bodies[1]).toEqual(bodies[0])
    expect(bodies[2]).toEqual(bodies[0])
    const saved = rows()
    expect(saved.map((r) => [r[0], r[2]])).toEqual([
      ['user', null],
      ['assistant', 'length'],
      ['user', null],
      ['assistant', 'stop']
    ])
    expect(saved[1]![1]).toBe(
      'Cleaning up.\n\n[The stream broke off in the middle of 2 tool calls; they were not run.]'
    )
    expect(saved[2]![1]).toMatch(/^\[System: The connection dropped while your last reply was streaming a tool call/)
    expect(kit.messages('S1').every((r) => r.tool_calls === null)).toBe(true)
    expect(result.finalText).toBe(
      'Cleaning up.\n\n[The stream broke off in the middle of 2 tool calls; they were not run.]All done.'
    )
  })

  it('Anthropic, the connection dropped after some text: the part is kept and the model asked to go on', async () => {
    const { agent } = await setUp('anthropic_messages', [drop(antStart + antText('The answer is')), antDone(' 42.')])
    const result = await agent.runTurn('what is it?')
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('The answer is 42.')
    expect(rows().map((r) => [r[0], r[0] === 'assistant' ? r[1] : null, r[2]])).toEqual([
      ['user', null, null],
      ['assistant', 'The answer is', 'length'],
      ['user', null, null],
      ['assistant', ' 42.', 'stop']
    ])
  })

  it('Anthropic, a tool_use block cut mid-arguments every time: asked 3 times in all, never run, an error', async () => {
    const cutTool =
      antStart +
      ant('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'terminal', input: {} }
      }) +
      ant('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"command":"ls"}' } })
    const { agent, terminal } = await setUp('anthropic_messages', [drop(cutTool)])
    const result = await agent.runTurn('list')
    expect(terminal.calls).toEqual([])
    expect(provider.hits).toBe(3)
    expect(result.status).toBe('error')
    // what broke and how often, not Node's bare "terminated"
    expect(result.error).toBe(
      'provider call failed: the connection closed before the reply ended (terminated: other side closed) (the stream broke off in the middle of a tool call 3 times in a row; it was not run)'
    )
    expect(result.partial).toBeUndefined()
    expect(kit.messages('S1').map((r) => r.role)).toEqual(['user'])
  })

  it('Anthropic, a tool_use whose input is whole but not JSON is not taken for a cut one: the parse error answers it', async () => {
    const badTool =
      antStart +
      ant('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'terminal', input: {} }
      }) +
      ant('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"command": ls}' } }) +
      ant('content_block_stop', { index: 0 }) +
      ant('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } }) +
      ant('message_stop', {})
    const { agent, terminal } = await setUp('anthropic_messages', [badTool, antDone('Fixed.')])
    const result = await agent.runTurn('list')
    expect(result.status).toBe('completed')
    expect(terminal.calls).toEqual([])
    const saved = kit.messages('S1')
    expect(JSON.parse(saved[1]!.tool_calls!)[0].function.arguments).toBe('{"command": ls}')
    expect(saved[2]!.content).toMatch(/^\{"error":"Invalid arguments for 'terminal': /)
    expect(saved[2]!.content).not.toMatch(/stream ended/)
  })

  it('Anthropic, a whole reply with no content that ended its turn (end_turn) is an empty reply, not a cut stream', async () => {
    // Not the stream's retries (no waits): the loop's empty-reply retries (empty-reply.ts), 3 more asks, as upstream's.
    const { agent } = await setUp('anthropic_messages', [antEmpty('end_turn')])
    const result = await agent.runTurn('go')
    expect([result.status, result.finalText, provider.hits]).toEqual(['completed', NO_REPLY_TEXT, 4])
    expect(rows()).toEqual([
      ['user', 'go', null],
      ['assistant', '(empty)', null]
    ])
  })

  it("Anthropic, a whole reply with no content otherwise: upstream's 3 attempts, waits growing from 2.5 × the base, then the error", async () => {
    const { agent } = await setUp('anthropic_messages', [antEmpty('max_tokens')])
    const result = await agent.runTurn('go', { onDelta: (d) => kit.deltas.push(d) })
    expect(provider.hits).toBe(3)
    expect(result.status).toBe('error')
    expect(result.error).toBe(
      'malformed provider reply: the reply held no content (stop reason: max_tokens) (a reply with no content 3 times in a row)'
    )
    expect(rows()).toEqual([['user', 'go', null]])
    // the kit's base wait is 10 ms: 25–37 ms, then 50–75 ms (upstream, at its 2 s: 5–7.5 s, then 10–15 s)
    const notices = kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text!)
    const when = notices.map((t) =>
      /^The provider's reply held no content; asking for the reply again in (\d+) ms \(attempt (\d) of 3\)\.$/.exec(t)
    )
    expect(when.map((m) => Number(m?.[2]))).toEqual([2, 3])
    const [first, second] = when.map((m) => Number(m?.[1]))
    expect([first! >= 25 && first! <= 38, second! >= 50 && second! <= 75]).toEqual([true, true])
  })

  it('dropped before any text: the same request again at once, kept out of the rows, the user told', async () => {
    const { agent, sent } = await setUp('chat_completions', [drop(chunk({ role: 'assistant' })), done('Fine now.')])
    const result = await agent.runTurn('say it', { onDelta: (d) => kit.deltas.push(d) })
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('Fine now.')
    expect(provider.hits).toBe(2)
    expect(sent()[1]).toEqual(sent()[0])
    expect(rows()).toEqual([
      ['user', 'say it', null],
      ['assistant', 'Fine now.', 'stop']
    ])
    expect(kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text)).toEqual([
      "The provider's stream broke off before any text; asking for the reply again now (attempt 2 of 18)."
    ])
  })

  it("dropped before any text every time: upstream's 18 attempts in rounds of 3, waits between rounds, then the error", async () => {
    const { agent } = await setUp('chat_completions', [drop(chunk({ role: 'assistant' }))], {
      limits: { streamRetryWaitMs: 40 }
    })
    const result = await agent.runTurn('say it', { onDelta: (d) => kit.deltas.push(d) })
    expect(provider.hits).toBe(18)
    expect(result.status).toBe('error')
    expect(result.error).toMatch(/^provider call failed: .*\(the stream broke off before any text 18 times in a row\)$/)
    expect(rows()).toEqual([['user', 'say it', null]])
    // every retry is said; the waits come after attempts 3 and 6 of a cycle (40–60 ms, 80–120 ms, as upstream's
    // 2–3 s, 4–6 s), and 120 ms (upstream: 6 s) before the second cycle a dropped connection gets
    const notices = kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text!)
    expect(notices).toHaveLength(17)
    const when = notices.map((t) => /again (now|in (\d+) ms) \(attempt (\d+) of 18\)\.$/.exec(t))
    expect(when.map((m) => Number(m?.[3]))).toEqual([...Array(17).keys()].map((k) => k + 2))
    const waits = when.map((m) => (m?.[2] ? Number(m[2]) : 0))
    const within = (w: number, lo: number, hi: number) => w >= lo && w <= hi
    expect([waits[2], waits[11]].every((w) => within(w!, 40, 60))).toBe(true)
    expect([waits[5], waits[14]].every((w) => within(w!, 80, 120))).toBe(true)
    expect(waits[8]).toBe(120)
    expect(waits.filter((w, k) => ![2, 5, 8, 11, 14].includes(k) && w !== 0)).toEqual([])
  })

  it('an empty body every time (no connection dropped): one cycle of 9 attempts, as upstream', async () => {
    const { agent } = await setUp('chat_completions', [''])
    const result = await agent.runTurn('say it')
    expect(provider.hits).toBe(9)
    expect(result.status).toBe('error')
    expect(result.error).toMatch(/the stream ended without any content \(.* 9 times in a row\)$/)
  })

  it('through OpenRouter, a dropped connection gets one cycle of 9 attempts (upstream rebuilds no client for it)', async () => {
    const { agent } = await setUp('chat_completions', [drop(chunk({ role: 'assistant' }))], { provider: 'openrouter' })
    const result = await agent.runTurn('say it')
    expect(provider.hits).toBe(9)
    expect(result.status).toBe('error')
  })

  it('Stop during the wait before asking again ends the turn at once, interrupted, without another request', async () => {
    // a wait far longer than the test may run: the turn ends only because Stop cuts it short
    const { agent } = await setUp('chat_completions', [drop(chunk({ role: 'assistant' }))], {
      limits: { streamRetryWaitMs: 600_000 }
    })
    const result = await agent.runTurn('say it', {
      onDelta: (d) => {
        kit.deltas.push(d)
        if (d.kind === 'notice' && / in \d/.test(d.text ?? '')) setTimeout(() => agent.interrupt(), 20)
      }
    })
    expect(result.status).toBe('interrupted')
    expect(provider.hits).toBe(3)
    expect(kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text)).toEqual([
      "The provider's stream broke off before any text; asking for the reply again now (attempt 2 of 18).",
      "The provider's stream broke off before any text; asking for the reply again now (attempt 3 of 18).",
      expect.stringMatching(/asking for the reply again in \d+\.\d s \(attempt 4 of 18\)\.$/)
    ])
    expect(rows()).toEqual([['user', 'say it', null]])
  })

  it('Stop while the model continues a cut-off reply: the answer keeps every part so far, joined', async () => {
    let stream: ServerResponse | undefined
    const { agent } = await setUp('chat_completions', [])
    provider.route = (_req, res, n) => {
      if (n === 1) return send(res, drop(chunk({ content: 'Part one, ' })))
      sse(res)
      stream = res
      res.write(chunk({ content: 'part two ' })) // and then nothing: the model is still writing
    }
    const result = await agent.runTurn('say it', {
      onDelta: (d) => {
        if (d.kind === 'text' && d.text === 'part two ') agent.interrupt()
      }
    })
    stream?.destroy()
    expect(result.status).toBe('interrupted')
    // joined as a finished continuation joins them (the kept part trimmed, as upstream keeps it)
    expect(result.finalText).toBe('Part one,part two ')
    expect(rows().map((r) => [r[0], r[0] === 'assistant' ? r[1] : null, r[2]])).toEqual([
      ['user', null, null],
      ['assistant', 'Part one,', 'length'],
      ['user', null, null],
      ['assistant', 'part two', 'interrupted']
    ])
  })

  it('a provider that cannot be reached is not asked again here (the call limits own those retries)', async () => {
    const { agent } = await setUp('chat_completions', [done('never')])
    await provider.close()
    const result = await agent.runTurn('say it')
    expect(result.status).toBe('error')
    expect(result.error).toMatch(/^could not reach provider/)
    expect(kit.deltas.filter((d) => d.kind === 'notice')).toEqual([])
  })

  it('a reply that ends with [DONE] but whose server never sends a finish_reason is complete', async () => {
    const { agent, terminal } = await setUp('chat_completions', [
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'terminal' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls"}' } }] }) +
        'data: [DONE]\n\n',
      done('All done.')
    ])
    const result = await agent.runTurn('list')
    expect(result.status).toBe('completed')
    expect(terminal.calls).toEqual([{ command: 'ls' }])
    expect(result.finalText).toBe('All done.')
  })
})

describe('a body that ends normally without the end-of-reply marker is complete (as upstream takes it)', () => {
  it('OpenAI-style, no finish_reason and no [DONE]: one request, the reply stored as finished ("stop")', async () => {
    const { agent } = await setUp('chat_completions', [
      chunk({ role: 'assistant' }) + chunk({ content: 'Half a repl' })
    ])
    const result = await agent.runTurn('say it', { onDelta: (d) => kit.deltas.push(d) })
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('Half a repl')
    expect(provider.hits).toBe(1)
    expect(rows()).toEqual([
      ['user', 'say it', null],
      ['assistant', 'Half a repl', 'stop']
    ])
    expect(kit.deltas.filter((d) => d.kind === 'notice')).toEqual([])
  })

  it('OpenAI-style, a whole tool call and no marker: the call runs', async () => {
    const { agent, terminal } = await setUp('chat_completions', [
      chunk({ content: 'Running. ' }) +
        chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } }
          ]
        }),
      done('Done.')
    ])
    const result = await agent.runTurn('list')
    expect(result.status).toBe('completed')
    expect(terminal.calls).toEqual([{ command: 'ls' }])
    expect(result.finalText).toBe('Done.')
  })

  it('OpenAI-style, a tool call cut mid-arguments and no marker: not run, not asked again as it stands, the text kept and the model asked to go on', async () => {
    const cut =
      chunk({ content: 'Running. ' }) +
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'terminal' } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] })
    const { agent, terminal } = await setUp('chat_completions', [cut, done('Done.')])
    const result = await agent.runTurn('list')
    expect(terminal.calls).toEqual([])
    expect(provider.hits).toBe(2)
    expect(result.status).toBe('completed')
    expect(rows().map((r) => [r[0], r[2]])).toEqual([
      ['user', null],
      ['assistant', 'length'],
      ['user', null],
      ['assistant', 'stop']
    ])
  })

  it('Anthropic, content but no message_stop: complete', async () => {
    const { agent } = await setUp('anthropic_messages', [antStart + antText('The answer is')])
    const result = await agent.runTurn('what is it?')
    expect(result.status).toBe('completed')
    expect(result.finalText).toBe('The answer is')
    expect(provider.hits).toBe(1)
    expect(rows()).toEqual([
      ['user', 'what is it?', null],
      ['assistant', 'The answer is', 'stop']
    ])
  })
})

// A safety refusal (OpenAI's finish_reason "content_filter", Anthropic's stop_reason "refusal") ends the turn failed
// with an error that says the model declined, and its explanation when it gave one: asked once, the user's message kept
// and no reply row, no tool run, as upstream's loop ends such a turn. Before, an empty refusal was an empty answer
// reported as a success (`run -z` printed nothing and exited 0).
describe("a provider's safety refusal", () => {
  it('OpenAI content_filter with text and a tool call: the turn fails saying so; nothing run or stored as a reply', async () => {
    const { agent, terminal } = await setUp('chat_completions', [
      chunk({ content: 'Not that.' }) +
        chunk({
          tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{}' } }]
        }) +
        `${chunk({}, 'content_filter')}data: [DONE]\n\n`
    ])
    const result = await agent.runTurn('tell me')
    expect(result.status).toBe('error')
    expect(result.error).toBe(
      'The model declined to respond (a safety refusal, finish_reason "content_filter"); rephrasing the request or using another model may help. Its explanation: Not that.'
    )
    expect(provider.hits).toBe(1)
    expect(terminal.calls).toEqual([])
    expect(rows()).toEqual([['user', 'tell me', null]])
  })

  it('Anthropic refusal with no content: the same failed turn, not an empty answer', async () => {
    const { agent } = await setUp('anthropic_messages', [antEmpty('refusal')])
    const result = await agent.runTurn('tell me')
    expect(result.status).toBe('error')
    expect(result.error).toMatch(/^The model declined to respond \(a safety refusal.* It gave no explanation\.$/)
    expect(provider.hits).toBe(1)
    expect(rows()).toEqual([['user', 'tell me', null]])
  })
})
