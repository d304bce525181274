import { describe, expect, it } from 'vitest'
import { memoryRebuildReason } from './rebuild-reason'

const base = {
  'memory.provider': 'whoami',
  'memory.source': 'plugin:/p',
  'memory.version': '1.0.0',
  'memory.files': 'a'
}

describe('memoryRebuildReason', () => {
  it('names a changed provider, a changed identity value, several changed keys and a plugin update', () => {
    expect(memoryRebuildReason(base, { ...base, 'memory.provider': 'holographic' })).toBe(
      'memory provider changed (whoami → holographic)'
    )
    expect(memoryRebuildReason({ ...base, 'memory.w': 'alice' }, { ...base, 'memory.w': 'bob' })).toBe(
      'memory provider identity changed (alice → bob)'
    )
    expect(
      memoryRebuildReason(
        { ...base, 'memory.w': 'alice', 'memory.n': 1 },
        { ...base, 'memory.w': 'bob', 'memory.n': 2 }
      )
    ).toBe('memory provider identity changed (n: 1 → 2, w: alice → bob)')
    expect(memoryRebuildReason(base, { ...base, 'memory.version': '1.1.0', 'memory.files': 'b' })).toBe(
      'memory plugin updated (1.0.0 → 1.1.0)'
    )
    expect(memoryRebuildReason(base, { ...base, 'memory.files': 'b' })).toBe('memory plugin files changed')
  })

  it('says nothing when memory did not change or nothing was recorded; never shows a secret', () => {
    expect(memoryRebuildReason(base, { ...base })).toBeUndefined()
    expect(memoryRebuildReason(null, base)).toBeUndefined()
    const reason = memoryRebuildReason(
      { ...base, 'memory.user': 'token-abcdef123456' },
      { ...base, 'memory.user': 'token-zyxwvu987654' },
      { secrets: ['token-abcdef123456', 'token-zyxwvu987654'] }
    )
    expect(reason).toBe('memory provider identity changed (*** → ***)')
    const long = memoryRebuildReason({ ...base, 'memory.x': 'a'.repeat(100) }, { ...base, 'memory.x': 'b' })!
    expect(long.length).toBeLessThan(100)
  })
})
