import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { MemoryPage } from '../page-models/memory-page'
import { SessionPage as TranscriptPage } from '../page-models/session-page'

test.use({ bypassCSP: true }) // axe is injected as a script tag

test("a memory tool call shows live on its own profile's Memory page only, and edits stay in that profile", async ({
  page,
  host,
  context
}) => {
  const shell = new AppShell(page)
  const memory = new MemoryPage(page)
  await shell.open(host.url)
  await shell.selectProfile('research')
  await memory.open()

  // Drive a resumed turn from a second tab while the first watches the feed live.
  const other = await context.newPage()
  const session = new TranscriptPage(other)
  const { items } = await api<SessionPage>(host.url, 'sessions.list', { profile: 'research', limit: 1 })
  await new AppShell(other).open(host.url)
  await session.open('research', items[0]!.id)
  await session.send('Please remember that the lab meeting moved to Thursdays')
  await session.waitForTurnEnd()

  await expect(
    memory
      .eventsOf('research')
      .filter({ hasText: /memory/i })
      .first()
  ).toBeVisible()
  await shell.selectProfile('work')
  await expect(memory.eventsOf('research')).toHaveCount(0)

  const researchFile = join(host.root, 'profiles', 'research', 'memories', 'MEMORY.md')
  const workFile = join(host.root, 'profiles', 'work', 'memories', 'MEMORY.md')
  const defaultFile = join(host.root, 'memories', 'MEMORY.md')
  expect(readFileSync(researchFile, 'utf8')).toContain('lab meeting moved to Thursdays')
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8')
    } catch {
      return ''
    }
  }
  const workBefore = read(workFile)
  const defaultBefore = read(defaultFile)

  await shell.selectProfile('research')
  await memory.open()
  const texts = await memory.entryTexts()
  const index = texts.findIndex((t) => t.includes('lab meeting'))
  // How full the file is, counted as upstream's tool counts it against memory.memory_char_limit (default 2,200): the
  // entries it keeps joined by the delimiter, in code points; before and after the page's own edit.
  const counted = () => {
    const kept = new Set(
      read(researchFile)
        .split('\n§\n')
        .map((e) => e.trim())
    )
    return Array.from([...kept].filter(Boolean).join('\n§\n')).length
  }
  await memory.expectUsage(counted(), 2_200)
  const usedBefore = counted()
  await memory.editEntry(index, 'The lab meeting is on Thursdays at 10:00')
  expect(read(researchFile)).toContain('The lab meeting is on Thursdays at 10:00')
  expect(counted()).not.toBe(usedBefore)
  await memory.expectUsage(counted(), 2_200)
  expect(read(workFile)).toBe(workBefore)
  expect(read(defaultFile)).toBe(defaultBefore)

  // In place from the keyboard, as a session's title is renamed: Edit puts focus in the box; Escape drops the change,
  // shows the entry as it was and gives focus back to its Edit; ⌘/Ctrl+Enter saves (Enter is a new line in an entry).
  const saved = 'The lab meeting is on Thursdays at 10:00'
  const entry = memory.entries.nth(index)
  const edit = entry.getByTestId('memory-entry-edit')
  const box = page.getByTestId('memory-entry-input')
  await edit.focus()
  await page.keyboard.press('Enter')
  await expect(box).toBeFocused()
  // the box gives way in the narrow panel, not the buttons: each shows its whole label
  for (const id of ['memory-entry-save', 'memory-entry-cancel'])
    expect(await page.getByTestId(id).evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
  await page.keyboard.type(' and Fridays')
  await page.keyboard.press('Escape')
  await expect(box).toHaveCount(0)
  await expect(entry.locator('.entry-text')).toHaveText(saved)
  await expect(edit).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(box).toHaveValue(saved)
  await page.keyboard.type(', also Fridays')
  const unsaved = page.getByTestId('memory-entry-unsaved')
  await expect(unsaved).toContainText('MEMORY.md of research')
  const addBox = page.getByTestId('memory-add-input')
  await addBox.fill('Standup is at 9:30')
  // What is typed belongs to this profile's file: another profile shows its own entries with empty boxes (a Save or
  // an Add there would write this text into that profile)...
  await shell.selectProfile('work')
  await expect(memory.entries.first()).toBeVisible()
  await expect(box).toHaveCount(0)
  await expect(unsaved).toHaveCount(0)
  await expect(addBox).toHaveValue('')
  // ...while upstream's memory tool puts an entry first in research's file (a temp file renamed over it)
  const upstreamWrite = (entries: string[]) => {
    writeFileSync(`${researchFile}.tmp`, entries.join('\n§\n'))
    renameSync(`${researchFile}.tmp`, researchFile)
  }
  upstreamWrite(['Prefers metric units', ...texts.map((t, i) => (i === index ? saved : t))])
  // Coming back shows both texts again, the edit marked unsaved and over its entry where that now stands; focus stays
  // where the switch left it
  await shell.selectProfile('research')
  const moved = memory.entries.nth(index + 1)
  await expect(moved.getByTestId('memory-entry-input')).toHaveValue(`${saved}, also Fridays`)
  await expect(unsaved).toBeVisible()
  await expect(box).not.toBeFocused()
  await expect(addBox).toHaveValue('Standup is at 9:30')
  await box.focus()
  await page.keyboard.press('ControlOrMeta+Enter')
  await expect(box).toHaveCount(0)
  await expect(moved.locator('.entry-text')).toHaveText(`${saved}, also Fridays`)
  await expect(moved.getByTestId('memory-entry-edit')).toBeFocused()
  expect(read(researchFile)).toContain(`${saved}, also Fridays`)
  expect(read(researchFile)).toContain('Prefers metric units')
  expect(read(workFile)).toBe(workBefore)
  // and the new entry the same way: ⌘/Ctrl+Enter in the Add box adds it
  const count = await memory.entries.count()
  await addBox.press('ControlOrMeta+Enter')
  await expect(memory.entries).toHaveCount(count + 1)
  await expect(addBox).toHaveValue('')
  expect(read(researchFile)).toContain('Standup is at 9:30')
  // Each entry has a box of its own; one whose entry another process changes meanwhile is kept, offered as a new
  // entry, never saved over it
  const now = await memory.entryTexts()
  await memory.entries.nth(0).getByTestId('memory-entry-edit').click()
  await page.keyboard.type(' and litres')
  await memory.entries.nth(1).getByTestId('memory-entry-edit').click()
  await page.keyboard.type(' (checked)')
  await expect(memory.entries.nth(0).getByTestId('memory-entry-input')).toHaveValue('Prefers metric units and litres')
  upstreamWrite(['Prefers SI units', ...now.slice(1)])
  await expect(memory.entries.nth(0).locator('.entry-text')).toHaveText('Prefers SI units')
  await expect(page.getByTestId('memory-orphan-input')).toHaveValue('Prefers metric units and litres')
  await expect(memory.entries.nth(1).getByTestId('memory-entry-input')).toHaveValue(`${now[1]} (checked)`)
  await page.getByTestId('memory-orphan-add').click()
  await expect(page.getByTestId('memory-entry-orphan')).toHaveCount(0)
  await expect(memory.entries.last().locator('.entry-text')).toHaveText('Prefers metric units and litres')
  expect(read(researchFile)).toContain('Prefers SI units')
  await memory.entries.nth(1).getByTestId('memory-entry-cancel').click()
  await expect(page.getByTestId('memory-entry-input')).toHaveCount(0)
  // Remove from the keyboard: focus goes to the next entry's Edit, not its Remove, so Enter twice removes one entry
  const before = await memory.entryTexts()
  await memory.entries.nth(0).getByTestId('memory-entry-remove').focus()
  await page.keyboard.press('Enter')
  await expect(memory.entries).toHaveCount(before.length - 1)
  await expect(memory.entries.nth(0).getByTestId('memory-entry-edit')).toBeFocused()
  expect(await memory.entryTexts()).toEqual(before.slice(1))
  expect(read(researchFile)).not.toContain(before[0]!)
})

test("another process editing a profile's MEMORY.md (upstream's memory tool) shows on its open Memory page", async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const memory = new MemoryPage(page)
  await shell.open(host.url)
  await shell.selectProfile('work')
  await memory.open()
  const dir = join(host.root, 'profiles', 'work', 'memories')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'MEMORY.md')
  let before = ''
  try {
    before = readFileSync(file, 'utf8')
  } catch {
    /* no entries yet */
  }
  const marker = `written by upstream ${Date.now()}`
  // upstream's write: a temp file beside the target, renamed over it
  writeFileSync(join(dir, '.mem-tmp'), before ? `${before}\n§\n${marker}` : marker)
  renameSync(join(dir, '.mem-tmp'), file)
  await expect(memory.entries.filter({ hasText: marker })).toBeVisible()
  // How full it is follows the file too, and warns near the limit (2,200 by default) and past it, in words as well
  // as in colour: 1,800 chars is 81%, 2,300 is over (a hand edit can put a file past what the tool would write).
  const fill = (n: number) => {
    writeFileSync(join(dir, '.mem-tmp'), 'x'.repeat(n))
    renameSync(join(dir, '.mem-tmp'), file)
  }
  fill(1_800)
  await memory.expectUsage(1_800, 2_200)
  await expect(memory.usageFigure).toHaveText('1,800 / 2,200 chars · nearly full')
  await expect(page.getByTestId('memory-usage')).toHaveAttribute('data-tone', 'near')
  // an entry of one long word (a URL, a hash) wraps inside the panel instead of running out of it
  expect(await page.getByTestId('memory-entries').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'memory-usage-near', found, '[data-testid="memory-entries"]')
  fill(2_300)
  await memory.expectUsage(2_300, 2_200)
  await expect(memory.usageFigure).toHaveText('2,300 / 2,200 chars · over its limit')
  await expect(memory.usageMeter).toHaveAttribute('aria-valuetext', '2,300 of 2,200 characters (100%), over its limit')
  await scanThemes(page, 'memory-usage-over', found, '[data-testid="memory-entries"]')
  expect(found).toEqual({})
})

test('a USER.md that is not UTF-8 is shown read-only with why, with no Edit / Remove / Add to damage it', async ({
  page,
  host
}) => {
  const file = join(host.root, 'profiles', 'work', 'memories', 'USER.md')
  mkdirSync(join(host.root, 'profiles', 'work', 'memories'), { recursive: true })
  // A hand edit saved as Windows-1252: "café" with one E9 byte.
  const bytes = Buffer.from('Name: Ada\n\xc2\xa7\nFavourite drink: caf\xe9 au lait\n', 'latin1')
  writeFileSync(file, bytes)
  const shell = new AppShell(page)
  const memory = new MemoryPage(page)
  await shell.open(host.url)
  // Named before the Memory page is opened: a notice of the profile above the sessions list, and in the rail.
  await expect(page.getByTestId('profile-notice').filter({ hasText: file })).toContainText('is not valid UTF-8')
  await expect(page.getByTestId('profile-notice-work')).toHaveAttribute('title', /is not valid UTF-8/)
  // The banner follows the files live, as the rail does (the host's memory.changed), with no reload: a MEMORY.md
  // saved in the wrong encoding by an editor is named as it is written, and is no longer once it is written again.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true))
  const memoryFile = join(host.root, 'profiles', 'work', 'memories', 'MEMORY.md')
  const noticeOf = (f: string) => page.getByTestId('profile-notice').filter({ hasText: f })
  const rail = page.getByTestId('profile-notice-work')
  writeFileSync(memoryFile, Buffer.from('Standup: caf\xe9 at nine\n', 'latin1'))
  await expect(rail).toHaveAttribute('title', /MEMORY\.md is not valid UTF-8/)
  await expect(noticeOf(memoryFile)).toContainText('is not valid UTF-8')
  writeFileSync(memoryFile, 'Standup: café at nine\n')
  await expect(rail).not.toHaveAttribute('title', /MEMORY\.md is not valid UTF-8/)
  await expect(noticeOf(memoryFile)).toHaveCount(0)
  await expect(noticeOf(file)).toBeVisible()
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
  // a write the agent staged for approval (memory.write_approval; test/fixtures/upstream/memory-write-approval) is
  // counted beside the entries, not shown as one
  const pending = join(host.root, 'profiles', 'work', 'pending', 'memory')
  mkdirSync(pending, { recursive: true })
  const staged = { action: 'add', target: 'user', content: 'Name: Dana', old_text: null }
  writeFileSync(
    join(pending, 'a1b2c3d4.json'),
    JSON.stringify({ id: 'a1b2c3d4', subsystem: 'memory', payload: staged })
  )
  // and one upstream's own memory tool staged, as it wrote it
  const upstream = (
    JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/memory-write-approval/approve.json'), 'utf8')
    ) as { cases: Array<{ name: string; record: { id: string; payload: { content: string } } }> }
  ).cases.find((c) => c.name === 'approve add')!.record
  writeFileSync(join(pending, `${upstream.id}.json`), JSON.stringify(upstream, null, 2))
  await shell.selectProfile('work')
  await memory.open()
  await memory.target('user')
  await expect(memory.entries).toHaveCount(2)
  const review = page.getByTestId('memory-pending')
  await expect(review).toContainText('2 changes by the agent wait for your approval')
  // each shown in full, with the file it is for, and scanned by axe in every theme
  const item = (id: string) => review.locator(`[data-testid="memory-pending-item"][data-id="${id}"]`)
  await expect(item('a1b2c3d4')).toContainText('Add · USER.md')
  await expect(item('a1b2c3d4')).toContainText('Name: Dana')
  await expect(item(upstream.id)).toContainText('Add · MEMORY.md')
  await expect(item(upstream.id)).toContainText(upstream.payload.content)
  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'memory-pending', found, '[data-testid="memory-entries"]')
  expect(found).toEqual({})
  // Approve writes it to MEMORY.md as upstream's approve does; Reject drops the other; both records are gone
  await item(upstream.id)
    .getByRole('button', { name: `Approve staged write ${upstream.id}` })
    .click()
  await expect(item(upstream.id)).toHaveCount(0)
  await expect(review).toContainText('1 change by the agent waits for your approval')
  await item('a1b2c3d4').getByRole('button', { name: 'Reject staged write a1b2c3d4' }).click()
  await expect(review).toHaveCount(0)
  expect(readFileSync(join(host.root, 'profiles', 'work', 'memories', 'MEMORY.md'), 'utf8')).toBe(
    `Standup: café at nine\n§\n${upstream.payload.content}`
  )
  await memory.target('memory')
  await expect(memory.entries.filter({ hasText: upstream.payload.content })).toHaveCount(1)
  await memory.target('user')
  await expect(page.getByTestId('memory-entries-readonly')).toContainText('is not valid UTF-8')
  await expect(page.getByTestId('memory-entries-readonly')).toContainText(file)
  await expect(page.getByTestId('memory-entry-remove')).toHaveCount(0)
  await expect(page.getByTestId('memory-add')).toHaveCount(0)
  expect(readFileSync(file).equals(bytes)).toBe(true)
})
