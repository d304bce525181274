import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { SessionPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { MemoryPage } from '../page-models/memory-page'
import { SessionPage as TranscriptPage } from '../page-models/session-page'

test.use({ bypassCSP: true }) // axe is injected as a script tag

test('switching a profile to holographic on the Memory page: a turn stores a fact and the next turn recalls it, both in the feed', async ({
  page,
  host,
  context
}) => {
  const shell = new AppShell(page)
  const memory = new MemoryPage(page)
  await shell.open(host.url)
  await shell.selectProfile('work')
  await memory.open()
  await memory.chooseProvider('holographic')
  await expect(memory.providerStatus).toContainText('holographic')
  expect(readFileSync(join(host.root, 'profiles', 'work', 'config.yaml'), 'utf8')).toMatch(/provider: holographic/)

  const other = await context.newPage()
  const session = new TranscriptPage(other)
  const { items } = await api<SessionPage>(host.url, 'sessions.list', { profile: 'work', limit: 1 })
  await new AppShell(other).open(host.url)
  await session.open('work', items[0]!.id)
  await session.send('Please remember that the release train leaves on Tuesdays')
  await session.waitForTurnEnd()
  await session.send('When does the release train go?')
  await session.waitForTurnEnd()

  // The transcript folds what each turn recalled and wrote.
  await other.reload()
  await expect(other.getByTestId('turn-memory').filter({ hasText: '0 recalled, 1 written' })).toBeVisible()
  await expect(other.getByTestId('turn-memory').filter({ hasText: '1 recalled, 0 written' })).toBeVisible()

  await memory.filterProvider('holographic')
  await expect(
    memory.eventsOfKind('tool_call').filter({ hasText: 'the release train leaves on Tuesdays' }).first()
  ).toBeVisible()
  await expect(
    memory.eventsOfKind('prefetch').filter({ hasText: 'recalled:' }).filter({ hasText: 'release train' }).first()
  ).toBeVisible()
  await expect(memory.providerStatus).toContainText('active')

  const db = new Database(join(host.root, 'profiles', 'work', 'memory_store.db'), { readonly: true })
  try {
    expect(db.prepare('SELECT content FROM facts').all()).toEqual([{ content: 'the release train leaves on Tuesdays' }])
  } finally {
    db.close()
  }
})

test('picking mem0 on a profile with no MEM0_API_KEY says it is unavailable and why, not that it takes effect; a provider that failed to start and a name no provider has are shown for what they are', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const memory = new MemoryPage(page)
  await shell.open(host.url)
  await shell.selectProfile('work')
  await memory.open()
  await memory.chooseProvider('mem0')
  await expect(memory.providerStatus).toContainText('mem0: unavailable')
  await expect(memory.providerStatus).toContainText('MEM0_API_KEY is not set')
  await expect(memory.providerStatus).toContainText('The next turn uses built-in memory only.')
  await expect(memory.providerStatus).not.toContainText('takes effect')
  // A provider the next turn can use still says so.
  await memory.chooseProvider('holographic')
  await expect(memory.providerStatus).toContainText('holographic: takes effect on the next turn')

  // axe in both themes at the two states below (the unavailable text above is the unknown name's markup)
  const found: Record<string, AxeViolation[]> = {}

  // A memory_store.db that is not a database: the turn still runs on built-in memory, the page says why the provider
  // failed (status and health row), and the file is left as it was.
  const work = join(host.root, 'profiles', 'work')
  const junk = 'not a database\n'.repeat(300)
  writeFileSync(join(work, 'memory_store.db'), junk)
  const { sessionId } = await api<{ sessionId: string }>(host.url, 'sessions.start', { profile: 'work', text: 'hello' })
  await expect
    .poll(async () =>
      (
        await api<{ items: { role: string }[] }>(host.url, 'sessions.messages', { profile: 'work', sessionId })
      ).items.some((m) => m.role === 'assistant')
    )
    .toBe(true)
  // no reload: the turn's memory activity makes the picker and the health panel read again
  await expect(memory.providerStatus).toContainText('holographic: failed to load')
  await expect(memory.providerStatus).toContainText('file is not a database')
  await expect(memory.healthRow('holographic')).toContainText('file is not a database')
  await scanThemes(page, 'provider-failed', found, '[data-testid="memory-provider"], [data-testid="memory-health"]')
  expect(readFileSync(join(work, 'memory_store.db'), 'utf8')).toBe(junk)

  // A name no provider has (upstream runs with built-in memory only): the picker shows that name, not "Built-in only".
  writeFileSync(
    join(work, 'config.yaml'),
    readFileSync(join(work, 'config.yaml'), 'utf8').replace('provider: holographic', 'provider: nosuch')
  )
  await shell.selectProfile('default') // the picker reads config.yaml again when its profile is chosen
  await shell.selectProfile('work')
  await expect(memory.providerStatus).toContainText("nosuch: unavailable — Memory provider 'nosuch' is not installed")
  await expect(page.getByTestId('memory-provider-select')).toHaveValue('nosuch')
  await scanThemes(page, 'provider-unknown', found, '[data-testid="memory-provider"]')
  expect(found).toEqual({})
})
