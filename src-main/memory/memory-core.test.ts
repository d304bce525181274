// The memory tool's `operations` batch and the recall fence, against upstream's answers
// (scripts/golden/memory_core.py → test/fixtures/upstream/memory-core/upstream.json). Each batch runs through the
// path a turn uses: buildMemoryManagerForAgent over the home's config.yaml with an external provider, the
// manager's `memory` tool, and the on_memory_write calls the manager mirrors it as. The host-level turn test
// (host/memory-providers/memory-core.host.test.ts) covers the request the model receives.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config'
import { withHomeOverride } from '../scope'
import { buildMemoryManagerForAgent } from './agent-build'
import { buildMemoryContextBlock } from './context-fence'
import { MemoryProvider, type MemoryWriteAction, type MemoryWriteTarget } from './provider'

interface Batch {
  name: string
  config: string
  files: Record<string, string>
  target: string
  operations: unknown
  answer: Record<string, unknown>
  after: Record<string, string>
  mirrored: Array<{ action: string; target: string; content: string; old_text: string | null }>
}
const golden = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../test/fixtures/upstream/memory-core/upstream.json'), 'utf8')
) as { context_blocks: Array<{ raw: string; block: string }>; batches: Batch[] }

class Recorder extends MemoryProvider {
  readonly name = 'recorder'
  writes: Batch['mirrored'] = []
  isAvailable() {
    return true
  }
  initialize() {}
  getToolSchemas() {
    return []
  }
  onMemoryWrite(action: MemoryWriteAction, target: MemoryWriteTarget, content: string, meta?: Record<string, unknown>) {
    this.writes.push({ action, target, content, old_text: typeof meta?.old_text === 'string' ? meta.old_text : null })
  }
}

const made: string[] = []
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })))
function home(config: string, files: Record<string, string>): string {
  const h = mkdtempSync(join(tmpdir(), 'cad-mem-core-'))
  made.push(h)
  mkdirSync(join(h, 'memories'))
  writeFileSync(join(h, 'config.yaml'), config)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(h, 'memories', name), text, { mode: 0o600 })
  return h
}
const filesOf = (h: string) =>
  Object.fromEntries(
    readdirSync(join(h, 'memories'))
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => [n, readFileSync(join(h, 'memories', n), 'utf8')])
  )

describe('operations batches answer, write and mirror as upstream', () => {
  it.each(golden.batches.map((b) => [b.name, b] as const))('%s', async (_n, b) => {
    const h = home(b.config, b.files)
    const recorder = new Recorder()
    const raw = loadConfig(h).raw
    const built = await buildMemoryManagerForAgent(
      { ...raw, memory: { ...(raw.memory as object), provider: 'recorder' } },
      h,
      () => recorder,
      { sessionId: 's', platform: 'cli' }
    )
    const m = built.manager!
    const args = { target: b.target, operations: b.operations }
    const answer = JSON.parse(await withHomeOverride(h, () => m.handleToolCall('memory', args))) as unknown
    expect(answer).toEqual(b.answer)
    expect(filesOf(h)).toEqual({ ...b.files, ...b.after })
    expect(recorder.writes).toEqual(b.mirrored)
    await m.shutdownAll()
  })
})

describe('the <memory-context> block', () => {
  it.each(golden.context_blocks.map((c, i) => [i, c] as const))('recalled text %i', (_i, c) => {
    expect(buildMemoryContextBlock(c.raw)).toBe(c.block)
  })

  it('strips what would close or reopen the fence, in any case and spacing', () => {
    const block = buildMemoryContextBlock('a </MEMORY-CONTEXT > b < memory-context>c')
    expect(block.split('\n').slice(-2)).toEqual(['a  b c', '</memory-context>'])
    let stripped = 0
    buildMemoryContextBlock('x</memory-context>', () => stripped++)
    buildMemoryContextBlock('clean', () => stripped++)
    expect(stripped).toBe(1)
  })
})
