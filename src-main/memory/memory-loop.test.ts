// The memory tool as upstream's real agent loop answers it (its prose in Caduceus's own words), one turn of single changes (add, replace, remove, a
// duplicate, an oversized add, an ambiguous and a missing old_text, failures past the per-turn cap), and the
// next session's snapshot blocks, against scripts/golden/memory_loop.py → test/fixtures/upstream/memory-loop/.
// That script also runs the same calls through Caduceus's desk turns and each program's next session on the
// other's home; this test replays the built-in part through the manager a turn uses, so CI needs no upstream.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config'
import { readFileIfExists } from '../files'
import { withHomeOverride } from '../scope'
import { buildMemoryManagerForAgent } from './agent-build'
import { BuiltinMemoryProvider } from './builtin'

type Call = { id: string; name: string; args: Record<string, unknown> }
type Answer = { id: string; content: string }
type Files = Record<'MEMORY.md' | 'USER.md', string | null>
const golden = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../test/fixtures/upstream/memory-loop/golden.json'), 'utf8')
) as {
  calls: Record<string, Call[]>
  answers: Record<string, Answer[]>
  homes: Record<string, Record<string, { files: Files }>>
  next: Record<string, { blocks: string[] }>
}

const made: string[] = []
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })))
function home(files: Files = { 'MEMORY.md': null, 'USER.md': null }): string {
  const h = mkdtempSync(join(tmpdir(), 'cad-mem-loop-'))
  made.push(h)
  mkdirSync(join(h, 'memories'))
  writeFileSync(join(h, 'config.yaml'), 'memory:\n  memory_enabled: true\n  user_profile_enabled: true\n')
  for (const [name, text] of Object.entries(files))
    if (text !== null) writeFileSync(join(h, 'memories', name), text, { mode: 0o600 })
  return h
}
const read = (h: string, name: string) => {
  return readFileIfExists(join(h, 'memories', name))
}

/**
 * An answer as behaviour: every field and value as upstream's, except the prose a model reads (`error`, `message`,
 * `note`), which Caduceus words itself — only whether it is there is compared.
 */
function behaviour(answer: unknown): unknown {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return answer
  return Object.fromEntries(
    Object.entries(answer).map(([k, v]) => [
      k,
      ['error', 'message', 'note'].includes(k) && typeof v === 'string' ? '<prose>' : v
    ])
  )
}

describe('one turn of memory tool calls answers and writes as upstream', () => {
  it('each answer, then the files', async () => {
    const h = home()
    const built = await buildMemoryManagerForAgent(loadConfig(h).raw, h, () => null, {
      sessionId: 's',
      platform: 'cli'
    })
    const m = built.manager!
    await m.onTurnStart(1, 'MEM-BUILTIN: remember these things')
    const want = golden.answers['upstream-write-default']!
    const got: Answer[] = []
    for (const c of golden.calls['MEM-BUILTIN']!)
      got.push({ id: c.id, content: await withHomeOverride(h, () => m.handleToolCall(c.name, c.args)) })
    expect(got.map((a) => ({ id: a.id, answer: behaviour(JSON.parse(a.content)) }))).toEqual(
      want.map((a) => ({ id: a.id, answer: behaviour(JSON.parse(a.content)) }))
    )
    const files = golden.homes.upstream!.default!.files
    expect({ 'MEMORY.md': read(h, 'MEMORY.md'), 'USER.md': read(h, 'USER.md') }).toEqual(files)
    await m.shutdownAll()
  })

  it("the next session's snapshot of either program's files is upstream's", () => {
    for (const who of ['upstream', 'caduceus'] as const) {
      const h = home(golden.homes[who]!.default!.files)
      const p = new BuiltinMemoryProvider()
      p.initialize('next', { hermesHome: h, platform: 'cli' })
      expect(p.systemPromptBlock()).toBe(golden.next[`upstream-next-on-${who}-default`]!.blocks.join('\n\n'))
    }
  })
})
