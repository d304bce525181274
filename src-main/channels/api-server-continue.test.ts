// SillyTavern's "Continue" against upstream's real agent: test/fixtures/upstream/api-continue (recorded by
// scripts/golden/api_continue_rows.py from upstream's API server building its own AIAgent on a scripted provider) holds,
// per request, the session the answer named, what the model was given and the rows upstream stored. The same requests
// here, each showing the replies this server gave (as the chat UI would), must group into sessions as upstream's did
// and store upstream's rows: the assistant's unfinished text as the user's message, then the reply.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type ScriptedProvider } from '../agent/scripted'
import type { Host } from '../host'
import { apiConversations } from '../host/app-channels'
import { startApiServer, type ApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'

interface Step {
  request: Array<{ role: string; content: string }>
  status: number
  reply: string
  session: string
  providerGot: Array<Array<[string, string]>>
  rows: Array<[string, string]>
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/api-continue/cases.json'), 'utf8')
) as { upstreamCommit: string; steps: Step[] }
const KEY = 'hk_continue_test_key_0123'

let root: string
let host: Host
let provider: ScriptedProvider
let server: ApiServer
let n = 0
const answers: Array<{ status: number; sid: string; reply: string; rows: Array<[string, string]> }> = []
const sent: Array<Array<[string, string]>> = []

beforeAll(async () => {
  provider = await startScriptedProvider({ handler: () => ({ text: `reply ${++n}` }) })
  ;({ root, host } = await apiHostHome({ prefix: 'cad-api-continue-', baseUrl: provider.baseUrl, key: KEY }))
  server = await startApiServer({
    gateway: host.gateway,
    vault: host.vault,
    profile: 'default',
    home: root,
    port: 0,
    sessions: apiConversations(host.stores, 'default')
  })
  for (const step of golden.steps) {
    // The chat UI shows the replies this server gave where upstream's request showed upstream's.
    const messages = step.request.map((m) => ({
      ...m,
      content: golden.steps.reduce(
        (text, s, i) => (answers[i] ? text.replace(s.reply, answers[i].reply) : text),
        m.content
      )
    }))
    const before = provider.requests.length
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'hermes-agent', messages })
    })
    const body = (await r.json()) as { choices: Array<{ message: { content: string } }> }
    const sid = r.headers.get('x-hermes-session-id')!
    const rows = host.stores
      .get('default')
      .getMessagesAsConversation(sid)
      .map((m): [string, string] => [m.role, typeof m.content === 'string' ? m.content : ''])
    answers.push({ status: r.status, sid, reply: body.choices[0]!.message.content, rows })
    const got = provider.requests[before]!.body.messages as Array<{ role: string; content: string }>
    sent.push(got.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]))
  }
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

/** A text with upstream's replies in it as this server's replies (each step's reply is the provider's next). */
const ours = (text: string) =>
  golden.steps.reduce((t, s, k) => (answers[k] ? t.split(s.reply).join(answers[k].reply) : t), text)

/** Messages with consecutive user turns run together, as upstream's agent sends them (repair_message_sequence). */
const merged = (msgs: Array<[string, string]>) =>
  msgs.reduce<Array<[string, string]>>((out, [role, text]) => {
    const last = out.at(-1)
    if (last && last[0] === 'user' && role === 'user') last[1] = `${last[1]}\n\n${text}`
    else out.push([role, text])
    return out
  }, [])

describe(`"Continue" as upstream's real agent runs and stores it (${golden.upstreamCommit.slice(0, 10)})`, () => {
  golden.steps.forEach((step, i) => {
    it(`step ${i + 1}: ${step.session}, upstream's rows`, () => {
      const a = answers[i]!
      expect(a.status).toBe(step.status)
      const same = answers.findIndex((b) => b.sid === a.sid)
      expect(same === i ? 'new' : `same as step ${same + 1}`).toBe(step.session)
      // Upstream stores only what each turn added; this server also keeps the history the first request brought, so
      // upstream's rows are the end of the session's (each reply being this server's own).
      const want = step.rows.map(([role, text]): [string, string] => [role, ours(text)])
      expect(a.rows.slice(-want.length)).toEqual(want)
    })
  })

  it('the model is given the request’s messages, as upstream’s is: the unfinished reply as the user’s message', () => {
    // After a resend too: the session stores the continued text as the user's message, but the model reads the
    // conversation as the request shows it (one assistant message), as upstream's agent is given it.
    golden.steps.forEach((step, i) =>
      expect(merged(sent[i]!), `step ${i + 1}`).toEqual(step.providerGot[0]!.map(([r, t]) => [r, ours(t)]))
    )
  })
})
