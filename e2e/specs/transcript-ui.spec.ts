import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { MessagePage, SessionDetail, SessionPage as Page, SubagentList } from '@shared/contract'
import { mergeSummaryInto } from '@shared/contract/merged-summary'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'
import { Palette } from '../page-models/palette'
import { SubagentsPage } from '../page-models/subagents-page'

const num = (s: string) => Number(s.replace(/[^\d]/g, ''))

async function topSession(url: string, profile = 'default') {
  const list = await api<Page>(url, 'sessions.list', { profile, limit: 20 })
  return list.items.find((s) => s.title)!
}

/** The app opened on the newest titled session of `profile`. */
async function openTopSession(page: import('@playwright/test').Page, url: string, profile = 'default') {
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  const s = await topSession(url, profile)
  await shell.open(url)
  await transcript.open(profile, s.id)
  return { shell, transcript, s }
}

test('a demo transcript renders Markdown: fenced code as <pre><code>, a table as <table>, a task list', async ({
  page,
  host
}) => {
  const { transcript, s } = await openTopSession(page, host.url)
  const answer = transcript
    .messagesByRole('assistant')
    .filter({ has: page.locator('table') })
    .first()
  await expect(answer.locator('pre > code.hljs')).toBeVisible()
  await expect(answer.locator('table th').first()).toHaveText('Step')
  await expect(answer.locator('li.task-list-item input[type=checkbox]')).toHaveCount(3)
  // no raw Markdown left over
  await expect(answer).not.toContainText('|---|')
  await expect(answer).not.toContainText('```')

  // per-turn tokens and cost under the turn's last reply, and its tool call on a timeline, as the rows saved them
  // the newest turn: in the open session itself (a chain's earlier turns are in its other segments)
  const turn = page.getByTestId('turn-usage').last()
  await expect(turn).toBeVisible()
  const lastId = Number(await turn.getAttribute('data-last-message-id'))
  const msgs = await api<MessagePage>(host.url, 'sessions.messages', {
    profile: 'default',
    sessionId: s.id,
    beforeId: lastId + 1,
    limit: 10
  })
  const reply = msgs.items.find((m) => m.id === lastId)!
  const used = reply.usage!.tokens
  expect(num(await turn.getByTestId('turn-input').innerText())).toBe(used.input)
  expect(num(await turn.getByTestId('turn-cached').innerText())).toBe(used.cacheRead)
  expect(num(await turn.getByTestId('turn-output').innerText())).toBe(used.output)
  expect(num(await turn.getByTestId('turn-reasoning').innerText())).toBe(used.reasoning)
  await expect(turn.getByTestId('turn-cost')).toHaveText(reply.usage!.cost.usd == null ? /unpriced/ : /\$\d/)
  const call = msgs.items.filter((m) => m.id < lastId && m.toolCalls?.length).at(-1)!
  const result = msgs.items.find((m) => m.toolCallId === call.toolCalls![0]!.id)!
  const row = turn.getByTestId('timeline-call').first()
  await expect(row).toContainText(call.toolCalls![0]!.name)
  await expect(row.getByTestId('timeline-duration')).toHaveText(`${(result.timestamp - call.timestamp).toFixed(1)} s`)
  await expect(row.getByTestId('timeline-size')).toHaveText(
    `${(result.content ?? '').length.toLocaleString('en-US')} chars`
  )
})

test('a streamed reply renders Markdown while it streams; sending meanwhile interrupts it, Stop stops it', async ({
  page,
  host
}) => {
  const { transcript } = await openTopSession(page, host.url, 'work')
  await transcript.send('show markdown and hold')
  const live = transcript.liveMessage
  const held = page.getByTestId('turn-strip').last()
  await expect(held).toHaveAttribute('data-status', 'running')
  await expect(live.locator('pre > code')).toContainText('answer')
  await expect(live.locator('table')).toBeVisible()
  await expect(live).toContainText('🦩')
  await expect(live).not.toContainText('\uFFFD')
  await expect(held).toHaveAttribute('data-status', 'running')
  // Upstream's busy input mode: with the turn running the composer offers Stop, and Send once there is text,
  // which stops the turn and runs the new message next on the same agent.
  const heldId = await held.getAttribute('data-turn-id')
  await expect(page.getByTestId('composer-send')).toBeDisabled()
  await transcript.composer.fill('never mind, just say hi')
  await expect(page.getByTestId('composer-send')).toHaveText(/Send now/)
  await transcript.send('never mind, just say hi')
  await expect(page.locator(`[data-testid="turn-strip"][data-turn-id="${heldId}"]`)).toHaveAttribute(
    'data-status',
    'interrupted'
  )
  expect(await transcript.waitForTurnEnd()).toBe('completed')
  await transcript.waitForMessage('never mind, just say hi', 'user')
  expect(await transcript.lastBadge()).toBe('reused')
  await transcript.send('show markdown and hold')
  await expect(page.getByTestId('turn-strip').last()).toHaveAttribute('data-status', 'running')
  await transcript.stop()
  expect(await transcript.waitForTurnEnd()).toBe('interrupted')
})

test('a long report renders block by block while it streams, and its saved message is the same page', async ({
  page,
  host
}) => {
  const { transcript } = await openTopSession(page, host.url, 'work')
  // 12 sections of headings, loose lists, tables and fenced code with blank lines: cut into blocks, none may split
  await transcript.send('show a long report and hold')
  const live = transcript.liveMessage.getByTestId('markdown')
  const shape = async (body: typeof live) => ({
    h2: await body.locator('h2').count(),
    tables: await body.locator('table').count(),
    code: await body.locator('pre > code').count(),
    lists: await body.locator('ol').count(),
    items: await body.locator('ol > li').count()
  })
  await expect(live.locator('pre > code').last()).toContainText('journalctl -u agent@12')
  expect(await shape(live)).toEqual({ h2: 12, tables: 12, code: 12, lists: 12, items: 24 })
  await expect(live.locator('pre > code').first()).toContainText('systemctl restart agent@1\n\njournalctl')
  const liveHtml = await live.innerHTML()
  await transcript.stop()
  expect(await transcript.waitForTurnEnd()).toBe('interrupted')
  const saved = transcript.messagesByRole('assistant').filter({ hasText: 'Host 12' }).last().getByTestId('markdown')
  await expect(saved.locator('table')).toHaveCount(12)
  expect(await saved.innerHTML()).toBe(liveHtml)
})

test('Ctrl+K → "cost" → Enter lands on Costs; fuzzy sessions with dates; ? lists the shortcuts; Escape leaves a session', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const palette = new Palette(page)
  const transcript = new SessionPage(page)
  await shell.open(host.url)
  await palette.open()
  await expect(palette.input).toHaveAttribute('role', 'combobox')
  await palette.input.fill('cost') // a partial page name
  await expect(palette.options.first()).toHaveText(/Costs/)
  await palette.input.press('Enter')
  await expect(page.getByTestId('page-costs')).toBeVisible()
  await expect(palette.dialog).toBeHidden()

  // fuzzy words find the Lisbon trip; session rows show their date and id
  await palette.open()
  await palette.input.fill('lisbn trp')
  const lisbon = palette.options.first()
  await expect(lisbon).toHaveAttribute('data-command', /^session:/)
  await expect(lisbon.locator('.palette-label')).toHaveText(/Lisbon/)
  await expect(lisbon.getByTestId('palette-date')).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/)
  const lisbonId = /^session:[^/]+\/(.+)$/.exec((await lisbon.getAttribute('data-command'))!)![1]!
  await expect(lisbon.getByTestId('palette-id')).toHaveAttribute('title', lisbonId)
  // "re" + Enter opens something to read, never a new chat or a profile switch
  await palette.input.fill('re')
  await palette.input.press('Enter')
  await expect(palette.dialog).toBeHidden()
  expect(page.url()).not.toMatch(/#\/new\//)
  // and a New chat button is always in view
  await page.getByTestId('topbar-new-chat').click()
  await expect(page.getByTestId('new-chat')).toBeVisible()
  await expect(page).toHaveURL(/#\/new\/default/)

  // sessions by title across profiles
  const s = await topSession(host.url, 'research')
  await palette.open()
  await palette.input.fill(s.title!)
  await page.locator(`[data-testid="palette-option"][data-command="session:research/${s.id}"]`).click()
  await expect(transcript.title).toHaveText(s.title!)

  await page.locator('body').press('?')
  const dialog = page.getByTestId('shortcuts-dialog')
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText('Ctrl/⌘ K')
  await expect(dialog).toContainText('p 1…9')
  await expect(dialog).toContainText('next / previous message')
  await expect(dialog).toContainText('first / last message')
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(page.getByTestId('page-session')).toBeVisible()
  await page.locator('body').press('Escape')
  await expect(page.getByTestId('page-sessions')).toBeVisible()

  // a parent names its delegate child, and the follow-up dialog names the child, never by id or "Untitled"
  const subs = await api<SubagentList>(host.url, 'subagents.list', { profile: 'all' })
  const child = subs.items.find((x) => x.state === 'retained' && x.parentSessionId)!
  const kid = await api<SessionDetail>(host.url, 'sessions.get', {
    profile: child.profile,
    sessionId: child.childSessionId
  })
  const name = (kid.summary.title ?? kid.summary.preview ?? child.goal).replace(/\s+/g, ' ').trim().slice(0, 30)
  await transcript.open(child.profile, child.parentSessionId!)
  const link = page.locator(`[data-testid="lineage-delegate"][title="${child.childSessionId}"]`)
  await expect(link).toContainText(name)
  const subagents = new SubagentsPage(page)
  await subagents.open()
  await subagents.startFollowUp(child.childId)
  const heading = page.getByTestId('followup-dialog').locator('h2')
  await expect(heading).toContainText(name)
  await expect(heading).not.toContainText(child.childId)
})

test('rename and pin persist after reload', async ({ page, host }) => {
  const { shell, transcript, s } = await openTopSession(page, host.url)
  await page.getByTestId('session-rename').click()
  // a tab is whitespace, as upstream's sanitize_title reads it: "by\tthe" is "by the", not "bythe"
  await page.getByTestId('session-title-input').fill('  Renamed \u0007by\tthe user  ')
  await page.getByTestId('session-title-input').press('Enter')
  await expect(transcript.title).toHaveText('Renamed by the user')
  // the saved title re-renders the heading, not the editor: focus is back on Rename, not dropped to the page
  await expect(page.getByTestId('session-rename')).toBeFocused()
  const pin = page.getByTestId('session-pin')
  const wasPinned = (await pin.getAttribute('aria-pressed')) === 'true'
  await pin.click()
  await expect(pin).toHaveAttribute('aria-pressed', String(!wasPinned))
  await page.reload()
  await expect(shell.connection).toHaveAttribute('data-state', 'connected')
  await expect(transcript.title).toHaveText('Renamed by the user')
  await expect(page.getByTestId('session-pin')).toHaveAttribute('aria-pressed', String(!wasPinned))
  const detail = await api<{ summary: { title: string; pinned: boolean } }>(host.url, 'sessions.get', {
    profile: 'default',
    sessionId: s.id
  })
  expect(detail.summary).toMatchObject({ title: 'Renamed by the user', pinned: !wasPinned })

  // a title another session holds: refused in words that name it by title, focus kept; Escape cancels and stays
  const list = await api<Page>(host.url, 'sessions.list', { profile: 'default', limit: 20 })
  const other = list.items.find((x) => x.title && x.id !== s.id)!
  await page.getByTestId('session-rename').click()
  const input = page.getByTestId('session-title-input')
  await input.fill(other.title!)
  await input.press('Enter')
  const refused = page.getByTestId('session-title-refused')
  await expect(refused).toContainText(`“${other.title}”`)
  await expect(refused).not.toContainText(other.id)
  await expect(page.getByTestId('session-title-holder')).toHaveAttribute(
    'href',
    new RegExp(encodeURIComponent(other.id))
  )
  await expect(input).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(input).toBeHidden()
  await expect(transcript.title).toHaveText('Renamed by the user')
  await expect(page.getByTestId('page-session')).toBeVisible()
})

test('an unknown session id shows "Session not found", one screen, no enabled composer', async ({ page, host }) => {
  const shell = new AppShell(page)
  await shell.open(host.url, '#/session/default/20990101_000000_nope')
  await expect(page.getByTestId('session-not-found')).toContainText('Session not found')
  await expect(page.getByTestId('composer-input')).toHaveCount(0)
  await expect(shell.errorToasts).toHaveCount(0)
})

test('a page opened without a token says a token is needed and how to get one', async ({ page, host }) => {
  const u = new URL(host.url)
  await page.goto(`${u.origin}/#/sessions`)
  const screen = page.getByTestId('token-needed')
  await expect(screen).toBeVisible()
  await expect(screen).toContainText('caduceus serve')
  await expect(screen).toContainText('?token=')
  // the token is stable across restarts, and nothing pretends to reconnect without one
  await expect(screen).toContainText('The token stays the same across restarts')
  await expect(page.getByTestId('disconnected-banner')).toHaveCount(0)
})

test('scope, filters and search live in the URL: reload and back/forward restore them', async ({ page, host }) => {
  const shell = new AppShell(page)
  await shell.open(host.url, '#/sessions?profile=work&q=rollback')
  await expect(shell.profile('work')).toHaveAttribute('aria-current', 'true')
  await expect(page.getByTestId('search-input')).toHaveValue('rollback')
  await expect(page.getByTestId('search-hit').first()).toBeVisible()
  await page.reload()
  await expect(shell.connection).toHaveAttribute('data-state', 'connected')
  await expect(page.getByTestId('search-input')).toHaveValue('rollback')
  await expect(shell.profile('work')).toHaveAttribute('aria-current', 'true')
  // open a hit, come back: the search is still there
  await page.getByTestId('search-hit').first().click()
  await expect(page.getByTestId('page-session')).toBeVisible()
  await page.goBack()
  await expect(page.getByTestId('search-input')).toHaveValue('rollback')
  expect(page.url()).toContain('q=rollback')
  // changing scope and clearing the search rewrite the URL
  await page.getByTestId('search-input').fill('')
  await shell.selectProfile('research')
  await expect.poll(() => new URL(page.url()).hash).toBe('#/sessions?profile=research')
})

test('after a resume the details panel no longer says the session ended', async ({ page, host }) => {
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  const list = await api<Page>(host.url, 'sessions.list', { profile: 'research', limit: 50 })
  const ended = list.items.find((s) => s.endedAt != null && s.kind === 'root')!
  await shell.open(host.url)
  await transcript.open('research', ended.id)
  await expect(page.getByTestId('meta-ended')).toBeVisible()
  await transcript.send('one more thing')
  await transcript.waitForTurnEnd()
  await expect(page.getByTestId('meta-ended')).toHaveCount(0)
  await expect(page.getByTestId('meta-model')).not.toBeEmpty()
})

test('delete asks to confirm, offers an undo window, then deletes', async ({ page, host }) => {
  // the page's clock, so the undo window below runs out without 8 real seconds of waiting
  await page.clock.install()
  const { shell, transcript, s } = await openTopSession(page, host.url)
  await page.getByTestId('session-delete').click()
  await expect(page.getByTestId('delete-dialog')).toBeVisible()
  await page.getByTestId('delete-confirm').click()
  await expect(page.getByTestId('page-sessions')).toBeVisible()
  await page.getByTestId('undo-delete').click()
  await expect(page.locator(`[data-testid="session-row"][data-session-id="${s.id}"]`)).toBeVisible()
  expect(
    (await api<{ summary: { id: string } }>(host.url, 'sessions.get', { profile: 'default', sessionId: s.id })).summary
      .id
  ).toBe(s.id)

  await transcript.open('default', s.id)
  await page.getByTestId('session-delete').click()
  await shell.undoWindowPasses(page.getByTestId('delete-dialog'), page.getByTestId('delete-confirm'))
  await expect(page.getByTestId('undo-delete-bar')).toBeHidden({ timeout: 15_000 })
  await expect
    .poll(() =>
      api(host.url, 'sessions.get', { profile: 'default', sessionId: s.id }).then(
        () => 'there',
        () => 'gone'
      )
    )
    .toBe('gone')
})

test('at 1024 px the sidebar collapses, and expands again on demand', async ({ page, host }) => {
  await page.setViewportSize({ width: 1024, height: 768 })
  const shell = new AppShell(page)
  await shell.open(host.url)
  const toggle = page.getByTestId('rail-toggle')
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')
  await expect(page.locator('.rail-name').first()).toBeHidden()
  await toggle.click()
  await expect(page.locator('.rail-name').first()).toBeVisible()
  await page.locator('body').press('[')
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')
})

test('a compression chain opens as one conversation with a compaction marker and the summary folded', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  const list = await api<Page>(host.url, 'sessions.list', { profile: 'default', limit: 100 })
  const row = list.items.find((s) => s.chainLength > 1)!
  const detail = await api<{ lineage: { chain: Array<{ id: string }> } }>(host.url, 'sessions.get', {
    profile: 'default',
    sessionId: row.id
  })
  const chain = detail.lineage.chain.map((r) => r.id)
  const tip = chain[chain.length - 1]!
  // the tip opens with a summary longer than a page's cut, merged into the user's kept question (Caduceus's layout)
  const KEPT = 'E2E-KEPT: which steps are left?'
  const steps = Array.from({ length: 3000 }, (_, i) => `- step ${i}: done`).join('\n')
  const db = new Database(join(host.root, 'state.db'))
  let opening: number
  // and a summary over the page's read bound (4 MB) merged into a reply: the page carries its size only
  const HUGE_KEPT = 'E2E-HUGE: only the last step is left.'
  let huge: number
  try {
    opening = db.prepare('SELECT MIN(id) FROM messages WHERE session_id = ?').pluck().get(tip) as number
    db.prepare(`UPDATE messages SET role = 'user', content = ? WHERE id = ?`).run(
      mergeSummaryInto(KEPT, `## Progress\n${steps}`),
      opening
    )
    huge = db
      .prepare("SELECT MAX(id) FROM messages WHERE session_id = ? AND role = 'assistant'")
      .pluck()
      .get(tip) as number
    db.prepare(`UPDATE messages SET content = ?, display_metadata = ? WHERE id = ?`).run(
      mergeSummaryInto(HUGE_KEPT, `## Plan\n${'- a step of a very long plan, kept in order\n'.repeat(100_000)}`),
      JSON.stringify({ summaryMerged: true }),
      huge
    )
  } finally {
    db.close()
  }
  await shell.open(host.url)
  await transcript.open('default', tip)
  const marker = page.locator(`[data-testid="compaction-marker"][data-segment="${tip}"]`)
  await expect(marker).toBeAttached()
  await marker.scrollIntoViewIfNeeded()
  await expect(marker).toContainText('Context compacted')
  await expect(marker).toContainText(`part ${chain.length} of ${chain.length}`)
  // the tip's opening summary is folded, one click away
  const merged = page.locator(`[data-testid="message"][data-message-id="${opening}"]`)
  const summary = merged.getByTestId('compaction-summary')
  await expect(summary.getByTestId('compaction-summary-toggle')).toHaveAttribute('aria-expanded', 'false')
  // its kept words show as the user's message; the summary's start is folded, "Show all" reads the rest
  await expect(merged).toHaveAttribute('data-role', 'user')
  await expect(merged.locator('.msg-body')).toHaveText(KEPT)
  await summary.getByTestId('compaction-summary-toggle').click()
  await expect(summary).not.toContainText('step 2999: done')
  await summary.getByTestId('tool-show-all').click()
  await expect(summary.getByTestId('tool-cut')).toHaveCount(0)
  await expect(summary).toContainText('step 2999: done')
  await expect(merged.locator('.msg-body')).toHaveText(KEPT)
  // the reply over the bound says what it holds and how large it is, not "(empty message)"; "Show all" reads it whole
  const big = page.locator(`[data-testid="message"][data-message-id="${huge}"]`)
  await big.scrollIntoViewIfNeeded()
  await expect(big.getByTestId('message-unread')).toHaveAttribute('data-unread', 'merged')
  await expect(big.getByTestId('tool-cut')).toContainText('Not shown of 4.2 MB')
  await expect(big.getByTestId('message-empty')).toHaveCount(0)
  await big.getByTestId('tool-show-all').click()
  await expect(big.locator('.msg-body')).toHaveText(HUGE_KEPT)
  await expect(big.getByTestId('compaction-summary')).toBeAttached()
  // the previous segment's messages are part of the same transcript
  const rootPage = await api<{ items: Array<{ id: number }> }>(host.url, 'sessions.messages', {
    profile: 'default',
    sessionId: chain[chain.length - 2],
    beforeId: Number.MAX_SAFE_INTEGER,
    limit: 1
  })
  await expect
    .poll(async () =>
      page
        .locator('[data-testid="message"]')
        .evaluateAll(
          (els, id) => els.some((e) => Number(e.getAttribute('data-message-id')) <= id),
          rootPage.items[0]!.id
        )
    )
    .toBe(true)
})

test('a delegated child appears inline as an expandable card under its notice', async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  await shell.open(host.url)
  await shell.newChat('work')
  await session.send('Please delegate a survey of open pull requests to a subagent')
  await session.waitForTurnEnd()
  const card = page.getByTestId('child-card').filter({ hasText: 'survey of open pull requests' }).first()
  await expect(card).toBeVisible({ timeout: 30_000 })
  await card.getByRole('button', { name: /survey of open pull requests/ }).click()
  await expect(card.getByTestId('subagent-open')).toBeVisible()
  await expect(card.getByTestId('followup-open')).toBeVisible()
})
