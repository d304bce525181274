// Built-in memory store: upstream-compatible MEMORY.md / USER.md (`\n§\n`), the `memory` tool, the prompt
// block, and the UI's index-based edits, each strictly scoped to the home it is given.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CaduceusError } from '@shared/contract'
import { withHomeOverride } from '../scope'
import { BuiltinMemoryProvider } from './builtin'
import { editEntry, readEntries } from './builtin-store'

const memoryFile = (home: string) => join(home, 'memories', 'MEMORY.md')
import { runMemoryTool } from './builtin-tool'
import { nudgeIntervalOf } from './builtin-limits'
import { parsePyYaml } from '../config/py-yaml'
import { MemoryManager } from './manager'
import { makeHomes } from './test-fixtures/harness'

const tool = async (home: string, args: Record<string, unknown>) => JSON.parse(await runMemoryTool(home, args))

describe('built-in memory store', () => {
  it('reads an upstream-written MEMORY.md and writes back byte-compatible `\\n§\\n` separated entries', async () => {
    const { alpha } = makeHomes()
    mkdirSync(join(alpha, 'memories'), { recursive: true })
    writeFileSync(
      memoryFile(alpha),
      'User runs Debian 12\n§\nProject uses pnpm, not npm\nmulti-line ok\n§\nPrefers terse answers\n'
    )
    expect(readEntries(alpha, 'memory')).toEqual([
      'User runs Debian 12',
      'Project uses pnpm, not npm\nmulti-line ok',
      'Prefers terse answers'
    ])
    expect((await tool(alpha, { action: 'add', target: 'memory', content: 'Tests live beside code' })).success).toBe(
      true
    )
    expect(readFileSync(memoryFile(alpha), 'utf8')).toBe(
      [
        'User runs Debian 12',
        'Project uses pnpm, not npm\nmulti-line ok',
        'Prefers terse answers',
        'Tests live beside code'
      ].join('\n§\n')
    )
    expect(readdirSync(join(alpha, 'memories')).sort()).toEqual(['MEMORY.md', 'MEMORY.md.lock']) // temp file renamed away; upstream's lock file stays, as upstream leaves it
  })

  it('memory tool: add / replace / remove by unique substring, duplicates, limits and bad input', async () => {
    const { alpha } = makeHomes()
    // A write's answer is terminal (no entries: they invite repeats); the file holds the result.
    expect(await tool(alpha, { action: 'add', target: 'user', content: 'Name: Ada' })).toMatchObject({
      success: true,
      done: true,
      entry_count: 1
    })
    expect((await tool(alpha, { action: 'add', target: 'user', content: 'Name: Ada' })).message).toContain(
      'already exists'
    )
    await tool(alpha, { action: 'add', target: 'user', content: 'Timezone: UTC+1' })
    await tool(alpha, { action: 'replace', target: 'user', old_text: 'Timezone', content: 'Timezone: UTC+2' })
    expect(readEntries(alpha, 'user')).toEqual(['Name: Ada', 'Timezone: UTC+2'])
    await tool(alpha, { action: 'remove', target: 'user', old_text: 'Name' })
    expect(readEntries(alpha, 'user')).toEqual(['Timezone: UTC+2'])
    expect(await tool(alpha, { action: 'remove', target: 'user', old_text: 'absent' })).toMatchObject({
      success: false
    })
    await tool(alpha, { action: 'add', target: 'user', content: 'Timezone note: DST' })
    expect((await tool(alpha, { action: 'remove', target: 'user', old_text: 'Timezone' })).error).toContain(
      'is in more than one entry'
    )
    expect((await tool(alpha, { action: 'add', target: 'memory', content: 'x'.repeat(3_000) })).error).toContain(
      'does not fit'
    )
    expect((await tool(alpha, { action: 'add', target: 'memory', content: 'a\n§\nb' })).success).toBe(false)
    // a last line of just '§' would swallow the next entry's delimiter (upstream then reads 'a' and '§\n<next>')
    expect((await tool(alpha, { action: 'add', target: 'memory', content: 'a\r\n§' })).success).toBe(false)
    expect((await tool(alpha, { action: 'fly', target: 'memory' })).success).toBe(false)
    expect((await tool(alpha, { action: 'add', target: 'diary', content: 'x' })).success).toBe(false)
    expect((await tool(alpha, { action: 'add', target: 'memory', content: '   ' })).success).toBe(false)
    expect(readEntries(alpha, 'memory')).toEqual([])
  })

  it('UI edits by index touch only the given home and return the new list', async () => {
    const { alpha, beta } = makeHomes()
    await editEntry(beta, { op: 'add', target: 'memory', content: 'beta fact' })
    expect(await editEntry(alpha, { op: 'add', target: 'memory', content: 'first' })).toEqual(['first'])
    expect(await editEntry(alpha, { op: 'add', target: 'memory', content: 'second' })).toEqual(['first', 'second'])
    expect(await editEntry(alpha, { op: 'replace', target: 'memory', index: 0, content: 'first, edited' })).toEqual([
      'first, edited',
      'second'
    ])
    expect(await editEntry(alpha, { op: 'remove', target: 'memory', index: 1 })).toEqual(['first, edited'])
    expect(readEntries(beta, 'memory')).toEqual(['beta fact'])
    await expect(editEntry(alpha, { op: 'remove', target: 'memory', index: 5 })).rejects.toThrow(CaduceusError)
    await expect(editEntry(alpha, { op: 'replace', target: 'memory', index: 0, content: 'x\n§\ny' })).rejects.toThrow(
      /'§'/
    )
    await expect(editEntry(alpha, { op: 'add', target: 'nope' as 'memory', content: 'x' })).rejects.toThrow(
      CaduceusError
    )
    expect(readEntries(alpha, 'user')).toEqual([])
  })

  it("a UI replace or remove names the entry's text it was shown: refused once another program moved it", async () => {
    const { alpha } = makeHomes()
    await editEntry(alpha, { op: 'add', target: 'memory', content: 'Drinks tea' })
    await editEntry(alpha, { op: 'add', target: 'memory', content: 'Drinks coffee' })
    // the Memory page shows [tea, coffee] when upstream's memory tool removes the first one
    await tool(alpha, { action: 'remove', target: 'memory', old_text: 'Drinks tea' })
    const stale = { target: 'memory', index: 0, expected: 'Drinks tea' } as const
    await expect(editEntry(alpha, { op: 'replace', ...stale, content: 'Drinks green tea' })).rejects.toMatchObject({
      code: 'conflict'
    })
    await expect(editEntry(alpha, { op: 'remove', ...stale })).rejects.toMatchObject({ code: 'conflict' })
    expect(readEntries(alpha, 'memory')).toEqual(['Drinks coffee'])
    const now = { target: 'memory', index: 0, expected: 'Drinks coffee' } as const
    expect(await editEntry(alpha, { op: 'replace', ...now, content: 'Drinks black coffee' })).toEqual([
      'Drinks black coffee'
    ])
  })

  it('provider: binds to its initialize home, injects a session-stable snapshot into the system prompt', async () => {
    const { alpha, beta } = makeHomes()
    await editEntry(alpha, { op: 'add', target: 'memory', content: 'alpha note' })
    await editEntry(alpha, { op: 'add', target: 'user', content: 'alpha user' })
    await editEntry(beta, { op: 'add', target: 'memory', content: 'beta note' })
    const m = new MemoryManager()
    m.addProvider(new BuiltinMemoryProvider())
    await m.initializeAll('s1', { hermesHome: alpha, platform: 'desk' })
    const prompt = await withHomeOverride(alpha, () => m.buildSystemPrompt())
    expect(prompt).toContain('MEMORY (your personal notes)')
    expect(prompt).toContain('alpha note')
    expect(prompt).toContain('USER PROFILE')
    expect(prompt).not.toContain('beta note')
    await withHomeOverride(alpha, () =>
      m.handleToolCall('memory', { action: 'add', target: 'memory', content: 'added mid-session' })
    )
    expect(await withHomeOverride(alpha, () => m.buildSystemPrompt())).toBe(prompt) // prefix-cache stable
    await withHomeOverride(alpha, () => m.onSessionSwitch('s2'))
    expect(await withHomeOverride(alpha, () => m.buildSystemPrompt())).toContain('added mid-session')
    expect(readEntries(beta, 'memory')).toEqual(['beta note'])
    const noUser = new BuiltinMemoryProvider({ userProfileEnabled: false })
    noUser.initialize('s', { hermesHome: alpha, platform: 'desk' })
    expect(noUser.systemPromptBlock()).not.toContain('alpha user')
    expect(
      JSON.parse(
        await new BuiltinMemoryProvider().handleToolCall('memory', { action: 'add', target: 'memory', content: 'x' })
      ).success
    ).toBe(false)
  })

  it('consolidation refusals past three in a turn become terminal, and the next turn counts afresh', async () => {
    const { alpha } = makeHomes()
    const p = new BuiltinMemoryProvider()
    p.initialize('s', { hermesHome: alpha, platform: 'cli' })
    const big = { action: 'add', target: 'memory', content: 'x'.repeat(3_000) }
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(JSON.parse(await p.handleToolCall('memory', big)) as { done?: boolean })
    expect(answers.map((a) => a.done ?? false)).toEqual([false, false, false, true])
    p.onTurnStart()
    expect(JSON.parse(await p.handleToolCall('memory', big))).not.toHaveProperty('done')
  })
})

describe('memory.nudge_interval read as upstream reads it (golden memory-nudge)', () => {
  const cases = (
    JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/memory-nudge/cases.json'), 'utf8')
    ) as {
      cases: Array<{
        config: string
        memory_store_loaded: boolean
        interval_after_init: number
        review_turns: number[]
      }>
    }
  ).cases
  it.each(cases.map((c) => [c.config.split('\n').slice(2).join(' ').trim() || '(absent)', c] as const))(
    '%s',
    (_name, c) => {
      const section = (parsePyYaml(c.config).toJS() as { memory: Record<string, unknown> }).memory
      // Upstream without a store (a value int() refuses) never reviews; a non-positive interval neither.
      const upstream = c.memory_store_loaded && c.interval_after_init > 0 ? c.interval_after_init : 0
      expect(nudgeIntervalOf(section.nudge_interval)).toBe(upstream)
      expect(c.review_turns.length > 0).toBe(upstream > 0)
    }
  )
})
