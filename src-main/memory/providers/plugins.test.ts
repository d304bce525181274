// Plugin and provider loading on real folders: what loads, and the user-facing text of what does not.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listProviderChoices, loadMemoryProvider, ProviderLoadError, type ProviderContext } from '.'

let root: string
let ctx: ProviderContext
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cad-plugins-'))
  const home = join(root, 'profiles', 'alpha')
  mkdirSync(home, { recursive: true })
  ctx = { home, root, profile: 'alpha', config: { plugins: { good: { greeting: 'hi' } } }, secrets: { TOKEN: 't' } }
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

function plugin(base: string, name: string, manifest: string | null, source: string | null, file = 'index.mjs') {
  const dir = join(base, 'caduceus-plugins', 'memory', name)
  mkdirSync(dir, { recursive: true })
  if (manifest !== null) writeFileSync(join(dir, 'plugin.yaml'), manifest)
  if (source !== null) writeFileSync(join(dir, file), source)
}

const failure = async (name: string) => {
  const err = await loadMemoryProvider(name, ctx).then(
    () => null,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(ProviderLoadError)
  return (err as ProviderLoadError).userMessage
}

describe('loadMemoryProvider', () => {
  it('loads a root plugin (the profile folder wins over the root), passing its config and secrets', async () => {
    plugin(
      root,
      'good',
      'name: good\nversion: 2\n',
      `export function createProvider(ctx) { return { name: 'good', getToolSchemas: () => [], systemPromptBlock: () => ctx.config.greeting + ' ' + ctx.secret('TOKEN') + ' ' + ctx.profile } }`
    )
    const p = await loadMemoryProvider('good', ctx)
    expect(p.name).toBe('good')
    expect(await p.systemPromptBlock()).toBe('hi t alpha')
    plugin(
      ctx.home,
      'good',
      'name: good\n',
      `export function createProvider() { return { name: 'mine', getToolSchemas: () => [] } }`
    )
    expect((await loadMemoryProvider('good', ctx)).name).toBe('mine')
  })

  it('builtin names, unsupported upstream names, unknown names and bad plugins', async () => {
    expect((await loadMemoryProvider('holographic', ctx)).name).toBe('holographic')
    expect(await failure('honcho')).toContain('not supported by Caduceus')
    expect(await failure('nothing-here')).toContain('is not installed')
    // Installed upstream's way: a Python package in the profile's plugins/ folder, which this host cannot run.
    mkdirSync(join(ctx.home, 'plugins', 'pymem'), { recursive: true })
    writeFileSync(
      join(ctx.home, 'plugins', 'pymem', '__init__.py'),
      'from agent.memory_provider import MemoryProvider\n'
    )
    expect(await failure('pymem')).toBe(
      "Memory provider 'pymem' is an upstream Python memory plugin, which Caduceus cannot run; continuing with built-in memory only."
    )
    mkdirSync(join(ctx.home, 'plugins', 'notmem'), { recursive: true })
    writeFileSync(join(ctx.home, 'plugins', 'notmem', '__init__.py'), 'def register(ctx): pass\n')
    expect(await failure('notmem')).toContain('is not installed')
    expect(await failure('../etc')).toContain('not a valid provider name')
    plugin(root, 'nomod', 'name: nomod\n', null)
    expect(await failure('nomod')).toContain('no module to load')
    plugin(root, 'noexport', 'name: noexport\n', 'export const x = 1')
    expect(await failure('noexport')).toContain('does not export createProvider')
    plugin(root, 'badobj', 'name: badobj\n', 'export function createProvider() { return { name: "x" } }')
    expect(await failure('badobj')).toContain('must return an object with getToolSchemas()')
    plugin(root, 'throws', 'name: throws\n', 'export function createProvider() { throw new Error("boom") }')
    expect(await failure('throws')).toContain('failed to start')
    plugin(root, 'badyaml', 'name: [unclosed\n', 'export function createProvider() {}')
    expect(await failure('badyaml')).toContain('plugin.yaml could not be read')
    for (const name of ['nomod', 'noexport', 'badobj', 'throws', 'badyaml'])
      expect(await failure(name)).not.toContain(root)
  })

  it('lists builtin, plugin and unsupported choices for the picker', () => {
    plugin(
      root,
      'good',
      'name: good\nversion: 1.2.0\ndescription: A good plugin\n',
      'export function createProvider() {}'
    )
    const choices = listProviderChoices(ctx, ['good', 'absent'])
    expect(choices.map((c) => `${c.name}:${c.kind}`)).toEqual([
      'holographic:builtin',
      'mem0:builtin',
      'good:plugin',
      'honcho:unsupported',
      'supermemory:unsupported',
      'hindsight:unsupported',
      'byterover:unsupported',
      'retaindb:unsupported',
      'openviking:unsupported'
    ])
    expect(choices.find((c) => c.name === 'good')).toMatchObject({ description: 'A good plugin', version: '1.2.0' })
  })
})
