import type { SessionDetail, SessionPage as SessionList } from '@shared/contract'
import { writtenHome } from '../fixtures/home-template'
import { test as base, expect, startHost, type RunningHost } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// A compression chain reads as one conversation: the continuation holds copies of the parent's last messages (the
// kept tail, after the summary) while the parent keeps the originals. Read as a chain, each of them shows once — the
// copy, after the summary — with the marker between the parts; the parent opened on its own still shows its own.
const test = base.extend<{ host: RunningHost }>({
  host: async ({}, use) => {
    const host = await startHost({ template: writtenHome('e2e/fixtures/write-chain-home.ts'), demo: false })
    await use(host)
    await host.close()
  }
})

test('a compressed conversation shows its kept messages once, after the summary', async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  const list = await api<SessionList>(host.url, 'sessions.list', { profile: 'default', limit: 50 })
  const tip = list.items.find((s) => s.rootId === 'chain-kept' && s.id !== 'chain-kept')!
  const detail = await api<SessionDetail>(host.url, 'sessions.get', { profile: 'default', sessionId: tip.id })
  expect(detail.lineage.chain.map((r) => r.id)).toEqual(['chain-kept', tip.id])

  await shell.open(host.url)
  await session.open('default', tip.id)
  // the parent's part follows on its own once the continuation's start is in view
  await session.waitForMessage('question 0', 'user')
  const marker = page.getByTestId('compaction-marker')
  await expect(marker).toHaveCount(1)
  const texts = async () =>
    (await session.messages.evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()))).map((t) =>
      t.replace(/\s+/g, ' ')
    )
  await expect.poll(async () => (await texts()).filter((t) => t.includes('answer 2 lorem')).length).toBe(1)
  const all = await texts()
  expect(all.filter((t) => t.includes('next question'))).toHaveLength(1)
  for (const tag of ['question 0', 'answer 0', 'question 1', 'answer 1', 'question 2'])
    expect(all.filter((t) => t.includes(`${tag} lorem`))).toHaveLength(1)
  // the marker counts each part's messages as shown here: the parent's without the ones its continuation carries
  const read = (sessionId: string, carriedBy?: string) =>
    api<{ items: unknown[] }>(host.url, 'sessions.messages', { profile: 'default', sessionId, carriedBy })
  const parentShown = (await read('chain-kept', tip.id)).items.length
  const tipShown = (await read(tip.id)).items.length
  expect(parentShown).toBeLessThan(detail.lineage.chain[0]!.messageCount)
  await expect(marker).toContainText(`part 1 had ${parentShown} messages`)
  await expect(marker).toContainText(`part 2 of 2, ${tipShown} messages`)
  // in place: the kept reply shows in the continuation, after the marker (its copy, not the parent's original)
  const kept = session.messages.filter({ hasText: 'answer 2 lorem' })
  const keptId = Number(await kept.getAttribute('data-message-id'))
  const markerBox = (await marker.boundingBox())!
  const keptBox = (await kept.boundingBox())!
  expect(keptBox.y).toBeGreaterThan(markerBox.y)

  // the parent opened on its own (as a search hit in its copy of the tail opens it) shows every row it holds
  const parentHit = await api<{ items: Array<{ id: number; content: string | null }> }>(host.url, 'sessions.messages', {
    profile: 'default',
    sessionId: 'chain-kept'
  })
  const original = parentHit.items.find((m) => (m.content ?? '').startsWith('answer 2'))!
  expect(original.id).not.toBe(keptId)
  await session.open('default', 'chain-kept', original.id)
  await expect(session.message(original.id)).toBeVisible()
  expect(await session.focusedMessageId()).toBe(original.id)
})
