// A reply the agent had to continue (cut by the output cap, or its stream dropped) is stored as parts with the agent's
// own "go on" message between them; the chat UI shows it as one assistant message and sends it back so with its next
// message. That next message continues the conversation's session, as upstream's server keeps it, instead of branching.
import { rmSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import { startScriptedProvider } from '../agent/scripted'
import { chunk, sse, startRouteServer } from '../agent/providers/test-fixtures/route-server'
import { apiConversations } from '../host/app-channels'
import { startApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'

const KEY = 'hk_continued_reply_key'
const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

async function serverOn(baseUrl: string, prefix: string): Promise<OpenAI> {
  const { root, host } = await apiHostHome({ prefix, baseUrl, key: KEY })
  const server = await startApiServer({
    gateway: host.gateway,
    vault: host.vault,
    profile: 'default',
    home: root,
    port: 0,
    sessions: apiConversations(host.stores, 'default')
  })
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => host.close(),
    () => server.close()
  )
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
}

const sessionOf = (r: { response: Response }) => r.response.headers.get('x-hermes-session-id')

/** The chat UI's next turn: its history with the reply as it showed it, then a new message. */
const resend = (client: OpenAI, reply: string) =>
  client.chat.completions
    .create({
      model: 'm',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: reply },
        { role: 'user', content: 'next' }
      ]
    })
    .withResponse()

describe('a continued reply keeps its conversation in one session', () => {
  it('cut by the output cap, answered whole', async () => {
    let n = 0
    const provider = await startScriptedProvider({
      handler: () =>
        ++n === 1 ? { text: 'Part one ', finishReason: 'length' } : { text: n === 2 ? 'part two.' : 'ok' }
    })
    cleanups.push(() => provider.close())
    const client = await serverOn(provider.baseUrl, 'cad-cont-cap-')
    const first = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse()
    const reply = first.data.choices[0]!.message.content!
    expect(reply).toBe('Part one part two.')
    expect(sessionOf(await resend(client, reply))).toBe(sessionOf(first))
  })

  it('streamed, its stream dropped mid-reply and continued', async () => {
    const provider = await startRouteServer((_req, res, n) => {
      sse(res)
      if (n === 1) {
        res.write(chunk({ role: 'assistant' }) + chunk({ content: 'Part one, ' }), () =>
          setTimeout(() => res.socket?.destroy(), 20)
        )
        return
      }
      res.end(`${chunk({ content: n === 2 ? 'part two.' : 'ok' }, 'stop')}data: [DONE]\n\n`)
    })
    cleanups.push(() => provider.close())
    const client = await serverOn(provider.baseUrl, 'cad-cont-drop-')
    const first = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hello' }], stream: true })
      .withResponse()
    let text = ''
    for await (const c of first.data) text += c.choices?.[0]?.delta?.content ?? ''
    // the client saw the kept part as streamed; the store keeps it trimmed, as upstream does
    expect(text.replace(/\s+/g, ' ')).toBe('Part one, part two.')
    expect(sessionOf(await resend(client, text))).toBe(sessionOf(first))
  })
})
