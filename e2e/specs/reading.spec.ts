// Issue 26 items 7–8 through the UI, on one demo host: the palette's fuzzy match and dates, Enter on a partial
// name, the New chat button, rename (whitespace, refusal by title, Escape), the follow-up dialog and the
// delegates line by name, and per-turn tokens, cost and tool timeline. Home/End and j/k: long-transcript.spec.ts;
// the cost report CSV: costs-totals.spec.ts.
import type { MessagePage, SessionDetail, SessionPage as ListPage, SubagentList } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { Palette } from '../page-models/palette'
import { SessionPage } from '../page-models/session-page'
import { SubagentsPage } from '../page-models/subagents-page'

const num = (s: string) => Number(s.replace(/[^\d]/g, ''))

test('palette, New chat, rename, names of children, and per-turn usage with a tool timeline', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const palette = new Palette(page)
  const transcript = new SessionPage(page)
  const list = await api<ListPage>(host.url, 'sessions.list', { profile: 'all', limit: 500, archived: 'include' })
  const lisbon = list.items.filter((s) => /Lisbon/.test(s.title ?? ''))
  expect(lisbon.length).toBeGreaterThan(0)
  await shell.open(host.url)

  await test.step('palette: fuzzy words find the Lisbon trip, rows show date and id', async () => {
    await palette.open()
    await palette.input.fill('lisbn trp')
    const first = palette.options.first()
    await expect(first).toHaveAttribute('data-command', /^session:/)
    await expect(first.locator('.palette-label')).toHaveText(/Lisbon/)
    await expect(first.getByTestId('palette-date')).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/)
    const id = /^session:[^/]+\/(.+)$/.exec((await first.getAttribute('data-command'))!)![1]!
    await expect(first.getByTestId('palette-id')).toHaveAttribute('title', id)
    // "re" + Enter opens something to read, never a new chat or a profile switch
    await palette.input.fill('re')
    await palette.input.press('Enter')
    await expect(palette.dialog).toBeHidden()
    expect(page.url()).not.toMatch(/#\/new\//)
    await palette.open()
    await palette.input.fill('sess')
    await palette.input.press('Enter')
    await expect(page).toHaveURL(/#\/sessions/)
  })

  await test.step('a visible New chat button', async () => {
    await page.getByTestId('topbar-new-chat').click()
    await expect(page.getByTestId('new-chat')).toBeVisible()
    await expect(page).toHaveURL(/#\/new\/default/)
  })

  const titled = list.items.filter((s) => s.profile === 'default' && s.title && s.kind === 'root')
  const [a, b] = [titled[0]!, titled[1]!]
  await test.step('rename: a tab is a space; a taken title is refused by name, focus kept; Escape stays', async () => {
    await transcript.open('default', a.id)
    await page.getByTestId('session-rename').click()
    await page.getByTestId('session-title-input').fill('Tabbed\ttitle  here')
    await page.getByTestId('session-title-input').press('Enter')
    await expect(transcript.title).toHaveText('Tabbed title here')
    await page.getByTestId('session-rename').click()
    const input = page.getByTestId('session-title-input')
    await input.fill(b.title!)
    await input.press('Enter')
    const refused = page.getByTestId('session-title-refused')
    await expect(refused).toContainText(`“${b.title}”`)
    await expect(refused).not.toContainText(b.id)
    await expect(page.getByTestId('session-title-holder')).toHaveAttribute('href', new RegExp(encodeURIComponent(b.id)))
    await expect(input).toBeFocused()
    await page.keyboard.press('Escape')
    await expect(input).toBeHidden()
    await expect(transcript.title).toHaveText('Tabbed title here')
    await expect(page).toHaveURL(new RegExp(`#/session/default/${encodeURIComponent(a.id)}`))
  })

  await test.step('per-turn tokens and cost, and the tool timeline, as the messages saved them', async () => {
    const turn = page.getByTestId('turn-usage').first()
    await expect(turn).toBeVisible()
    const lastId = Number(await turn.getAttribute('data-last-message-id'))
    const msgs = await api<MessagePage>(host.url, 'sessions.messages', {
      profile: 'default',
      sessionId: a.id,
      beforeId: lastId + 1,
      limit: 10
    })
    const reply = msgs.items.find((m) => m.id === lastId)!
    expect(reply.usage).toBeDefined()
    expect(num(await turn.getByTestId('turn-input').innerText())).toBe(reply.usage!.tokens.input)
    expect(num(await turn.getByTestId('turn-cached').innerText())).toBe(reply.usage!.tokens.cacheRead)
    expect(num(await turn.getByTestId('turn-output').innerText())).toBe(reply.usage!.tokens.output)
    expect(num(await turn.getByTestId('turn-reasoning').innerText())).toBe(reply.usage!.tokens.reasoning)
    await expect(turn.getByTestId('turn-cost')).toHaveText(reply.usage!.cost.usd == null ? /unpriced/ : /\$\d/)
    // the turn's call: started with its assistant row, 2 s until its result row, the result's size
    const call = msgs.items.filter((m) => m.id < lastId && m.toolCalls?.length).at(-1)!
    const result = msgs.items.find((m) => m.toolCallId === call.toolCalls![0]!.id)!
    const row = turn.getByTestId('timeline-call').first()
    await expect(row).toContainText(call.toolCalls![0]!.name)
    await expect(row.getByTestId('timeline-duration')).toHaveText(`${(result.timestamp - call.timestamp).toFixed(1)} s`)
    await expect(row.getByTestId('timeline-size')).toHaveText(`${(result.content ?? '').length.toLocaleString('en-US')} chars`)
  })

  await test.step('j/k and Home/End are in the shortcuts help', async () => {
    await transcript.transcript.click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('?')
    const help = page.getByTestId('shortcuts-dialog')
    await expect(help).toContainText('next / previous message')
    await expect(help).toContainText('first / last message')
    await page.keyboard.press('Escape')
    await expect(help).toBeHidden()
  })

  await test.step('a parent names its delegate child; the follow-up dialog names the child', async () => {
    const subs = await api<SubagentList>(host.url, 'subagents.list', { profile: 'all' })
    const child = subs.items.find((s) => s.state === 'retained' && s.parentSessionId)!
    expect(child).toBeDefined()
    const kid = await api<SessionDetail>(host.url, 'sessions.get', {
      profile: child.profile,
      sessionId: child.childSessionId
    })
    const name = (kid.summary.title ?? kid.summary.preview ?? child.goal).replace(/\s+/g, ' ').trim().slice(0, 30)
    await transcript.open(child.profile, child.parentSessionId!)
    const link = page.locator(`[data-testid="lineage-delegate"][title="${child.childSessionId}"]`)
    await expect(link).toContainText(name)
    await expect(link).not.toContainText('Untitled session')

    const subagents = new SubagentsPage(page)
    await subagents.open()
    await subagents.startFollowUp(child.childId)
    const dialog = page.getByTestId('followup-dialog')
    await expect(dialog.locator('h2')).toContainText(name)
    await expect(dialog.locator('h2')).not.toContainText(child.childId)
  })
})
