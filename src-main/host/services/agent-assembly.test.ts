// The toolset and runtime rules the host builds agents and children with.
import { describe, expect, it } from 'vitest'
import { childToolsets, profileToolsets } from './agent-assembly'

describe('agent assembly rules', () => {
  // A child's own model: delegation-host.test.ts ("a follow-up rebuilds the retained child on the model…").
  // Leaf and orchestrator denials: delegation-host.test.ts ("children get real tools") sees them in real requests.
  it('children: the parent toolsets or the requested subset of them', () => {
    const parent = profileToolsets({ terminal: { enabled: true } })
    expect(parent).toEqual(['memory', 'delegation', 'terminal'])
    expect(childToolsets(parent, null)).toEqual(parent)
    expect(childToolsets(parent, ['terminal', 'browser'])).toEqual(['terminal'])
  })
})
