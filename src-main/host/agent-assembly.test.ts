// The toolset and runtime rules the host builds agents and children with.
import { describe, expect, it } from 'vitest'
import type { ResolvedRuntime } from '../config'
import { agentRuntime, childToolsets, profileToolsets } from './agent-assembly'

describe('agent assembly rules', () => {
  it('configured capabilities reach the built agent runtime (and a child may run on its own model)', () => {
    const rt = {
      model: 'm',
      provider: 'custom',
      baseUrl: 'http://x',
      apiKey: 'k',
      apiMode: 'chat_completions',
      capabilities: { vision: true }
    } as unknown as ResolvedRuntime
    expect(agentRuntime(rt).capabilities).toEqual({ vision: true })
    expect(agentRuntime(rt, 'child-model').model).toBe('child-model')
    expect(agentRuntime(rt).capabilities).not.toBe(rt.capabilities)
  })

  // Leaf and orchestrator denials: delegation-host.test.ts ("children get real tools") sees them in real requests.
  it('children: the parent toolsets or the requested subset of them', () => {
    const parent = profileToolsets({ terminal: { enabled: true } })
    expect(parent).toEqual(['memory', 'delegation', 'terminal'])
    expect(childToolsets(parent, null)).toEqual(parent)
    expect(childToolsets(parent, ['terminal', 'browser'])).toEqual(['terminal'])
  })
})
