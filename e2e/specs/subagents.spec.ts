import type { CostSummary, SessionCost, SubagentList } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { formatUsd } from '../../src-renderer/lib/format'
import { AppShell } from '../page-models/app-shell'
import { CostsPage } from '../page-models/costs-page'
import { SessionPage as TranscriptPage } from '../page-models/session-page'
import { SubagentsPage } from '../page-models/subagents-page'

// the app's own rule (whole cents, half up, from micro-dollars): toFixed rounds 3.795 down in binary
const money = (usd: number | null) => (usd === null ? 'unpriced' : formatUsd(usd))

test('a delegated child shows up live, takes a follow-up from the UI and can be tombstoned', async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new TranscriptPage(page)
  const subagents = new SubagentsPage(page)
  await shell.open(host.url)
  await shell.newChat('work')
  await session.send('Please delegate a survey of open pull requests to a subagent')
  await session.waitForTurnEnd()

  // The background child completes and is retained; the page learns it from delegation.updated.
  await subagents.open()
  await expect
    .poll(
      async () => {
        const l = await api<SubagentList>(host.url, 'subagents.list', { profile: 'work' })
        return l.items.filter((i) => i.goal.includes('survey of open pull requests') && i.state === 'retained').length
      },
      { timeout: 20_000 }
    )
    .toBe(1)
  const { items } = await api<SubagentList>(host.url, 'subagents.list', { profile: 'work' })
  const child = items.find((i) => i.goal.includes('survey of open pull requests'))!
  await subagents.waitForState(child.childId, 'retained')
  // the model it ran with (its dispatch names none: it inherits the parent's), from its session row — not "—"
  expect(child.model).toBeTruthy()
  await expect(subagents.row(child.childId)).toContainText(child.model!)

  const { estimate } = await subagents.startFollowUp(child.childId)
  expect(estimate).toMatch(/message|token|char/i)
  expect(await subagents.sendFollowUp('Also list the stale ones')).toBeNull()
  // The reply was shown in place in the dialog, not only as a toast.
  expect(subagents.lastReply).toContain('Also list the stale ones')
  const transcript = await api<{ items: Array<{ content: string | null; role: string }> }>(
    host.url,
    'sessions.messages',
    { profile: 'work', sessionId: child.childSessionId }
  )
  expect(transcript.items.some((m) => m.role === 'user' && m.content === 'Also list the stale ones')).toBe(true)

  await subagents.tombstone(child.childId)
  await expect(subagents.row(child.childId)).toBeHidden()
  await subagents.showTombstoned(true)
  await subagents.waitForState(child.childId, 'tombstoned')
  const refused = await api<unknown>(host.url, 'subagents.followUp', {
    profile: 'work',
    childId: child.childId,
    text: 'again?'
  }).then(
    () => null,
    (e: Error) => e.message
  )
  expect(refused).toContain('not a running subagent')
})

test('the Costs page shows own vs inclusive totals that match the ledger', async ({ page, host }) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  const summary = await api<CostSummary>(host.url, 'costs.summary', { profile: 'all', days: 30 })
  await shell.open(host.url)
  await costs.open()
  await costs.days(30)
  expect(await costs.ownTotal()).toContain(money(summary.profiles.reduce((a, p) => a + (p.own.usd ?? 0), 0)))
  const withChildren = summary.profiles.find((p) => (p.children.usd ?? 0) > 0)!
  const cells = await costs.profileCells(withChildren.profile)
  expect(cells.children).toContain(money(withChildren.children.usd))
  expect(cells.inclusive).toContain(money(withChildren.inclusive.usd))

  // Per session: inclusive = own + the ledger's children.
  const top = summary.topSessions.find((s) => (s.inclusive.usd ?? 0) > (s.own.usd ?? 0))!
  const detail = await api<SessionCost>(host.url, 'costs.session', { profile: top.profile, sessionId: top.sessionId })
  const ledgerChildren = detail.children.reduce((a, c) => a + (c.cost.usd ?? 0), 0)
  expect(detail.inclusive.usd).toBeCloseTo((detail.own.usd ?? 0) + ledgerChildren, 6)
  const session = new TranscriptPage(page)
  await session.open(top.profile, top.sessionId)
  // the inclusive figure comes with the cost split, a request of its own that may answer after the header's own cost
  await expect(page.getByTestId('session-cost-inclusive')).toContainText(money(detail.inclusive.usd))
  const shown = await session.costs()
  expect(shown.own).toContain(money(detail.own.usd))
  expect(shown.inclusive).toContain(money(detail.inclusive.usd))
})
