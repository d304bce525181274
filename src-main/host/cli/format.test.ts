// `caduceus sessions list` prints every session, one whose last activity no Date can hold (an imported `1e13`,
// kept as upstream's import keeps it) among them: the time is printed as stored instead of failing the list.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { SessionStore } from '../../store'
import { formatSearch, formatSessionList, formatSessionShow } from './format'

it('lists a session whose last message is dated past year 275760', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cad-cli-format-'))
  const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
  try {
    const line = (id: string, ts: number) =>
      JSON.stringify({
        id,
        source: 'cli',
        started_at: 1700000000,
        messages: [{ role: 'user', content: id, timestamp: ts }]
      })
    await store.importJsonl([line('far', 1e13), line('near', 1700000001)].join('\n'), 10)
    const text = formatSessionList(store.listSessions({ limit: 10 }).items)
    expect(text).toMatch(/^10000000000000 {2}default +far /m)
    expect(text).toMatch(/^2023-11-14 22:13 {2}default +near /m)
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

// upstream's own list prints no cost; ours says what the app says. A session that used no tokens cost nothing
// known ("—", as in the app), never "$0.0000", and one message is "1 message".
it('prints a session without usage as "—" and one message in the singular', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cad-cli-format-'))
  const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
  try {
    const line = JSON.stringify({
      id: 'one',
      source: 'cli',
      started_at: 1700000000,
      messages: [{ role: 'user', content: 'hello', timestamp: 1700000001 }]
    })
    await store.importJsonl(line, 10)
    const list = formatSessionList(store.listSessions({ limit: 10 }).items)
    expect(list).toMatch(/ one +1 msg +— +hello$/)
    const show = formatSessionShow(store.getSessionDetail('one')!, [])
    expect(show.split('\n')[1]).toBe('source cli · model ? · 1 message · —')
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

// Message text is anyone's (a chat user, a fetched page, a model): printed raw, an ESC sequence in it drives the
// terminal (colours, window title, OSC 52 clipboard writes). The text output shows control characters as symbols.
it('prints control characters in message text as visible symbols, never raw to the terminal', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cad-cli-format-'))
  const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
  try {
    const evil = 'pay \u001b]52;c;ZXZpbA==\u0007now\u001b[2J ctrl\u0001\u009b31m\u007f\tend'
    const line = JSON.stringify({
      id: 'esc',
      source: 'cli',
      started_at: 1700000000,
      messages: [{ role: 'user', content: evil }]
    })
    await store.importJsonl(line, 10)
    const list = formatSessionList(store.listSessions({ limit: 10 }).items)
    const detail = store.getSessionDetail('esc')!
    const show = formatSessionShow(detail, store.getMessages({ sessionId: 'esc' }).items)
    const search = formatSearch(store.search({ query: 'ctrl' }).map((h) => ({ ...h, profile: 'default' })))
    for (const text of [list, show, search]) {
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
      expect(text).toContain('pay ␛]52;c;ZXZpbA==␇now␛[2J')
    }
    expect(show).toContain('ctrl␁\ufffd31m␡\tend')
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
