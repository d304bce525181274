import { describe, expect, it } from 'vitest'
import { canRunConcurrently, executeToolCall, ToolRegistry, type ToolDefinition } from './registry'

const ctx = { profile: 'default', sessionId: 's', turnId: 't', gatewaySessionKey: 'k' }
const def = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: 'object' },
  execute: (a) => JSON.stringify(a),
  ...extra
})

describe('ToolRegistry', () => {
  it('bumps the generation on register and on a real unregister only', () => {
    const r = new ToolRegistry()
    r.register(def('a'))
    const g = r.generation
    expect(r.unregister('missing')).toBe(false)
    expect(r.generation).toBe(g)
    expect(r.unregister('a')).toBe(true)
    expect(r.generation).toBe(g + 1)
  })

  it('turns unknown tools, bad JSON, non-object args and throws into error results', async () => {
    const r = new ToolRegistry()
    r.register(def('ok'))
    r.register(
      def('boom', {
        execute: () => {
          throw new Error('kaput')
        }
      })
    )
    const run = (name: string, args: string) => executeToolCall(r, { id: '1', name, arguments: args }, ctx)
    expect(await run('ok', '')).toMatchObject({ ok: true, content: '{}' })
    expect(JSON.parse((await run('nope', '{}')).content).error).toContain('Unknown tool')
    expect(JSON.parse((await run('ok', '{bad')).content).error).toContain('Invalid arguments')
    expect(JSON.parse((await run('ok', '[1]')).content).error).toContain('JSON object')
    expect(await run('boom', '{}')).toMatchObject({ ok: false, content: '{"error":"kaput"}' })
  })

  it('concurrency only for all-read-only batches of more than one call', () => {
    const r = new ToolRegistry()
    r.register(def('ro1', { readOnly: true }))
    r.register(def('ro2', { readOnly: true }))
    r.register(def('rw'))
    const calls = (...names: string[]) => names.map((name, i) => ({ id: String(i), name, arguments: `{"i":${i}}` }))
    expect(canRunConcurrently(r, calls('ro1', 'ro2'))).toBe(true)
    expect(canRunConcurrently(r, calls('ro1', 'rw'))).toBe(false)
    expect(canRunConcurrently(r, calls('ro1'))).toBe(false)
  })
})
