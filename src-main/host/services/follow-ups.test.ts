// The follow-up port that replaced runtime.ts's late-bound `let gateway`: notices saved before the gateway is
// connected wait and run in order; a one-shot host runs none; a failed follow-up is a warning, never a throw.
import { describe, expect, it } from 'vitest'
import type { Logger } from '@shared/contract/log'
import { FollowUpPort } from './follow-ups'

/** What the gateway's deliver receives (derived from the port, as the structure test asks of test types). */
type Delivered = Parameters<Parameters<FollowUpPort['connect']>[0]>[0]

const idle = async () => undefined
const deliverSaved = async () => null

const notice = (n: number) => ({
  area: 'terminal',
  what: `proc_${n}`,
  profile: 'default',
  sessionId: 's1',
  text: `process ${n} finished`,
  savedMessageId: n
})

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = []
  return { warnings, debug() {}, info() {}, warn: (name, m) => void warnings.push(`${name}: ${m}`), error() {} }
}

describe('FollowUpPort', () => {
  it('holds notices sent before the gateway is connected and delivers them in order after', async () => {
    const port = new FollowUpPort({ live: true, log: recordingLog() })
    const delivered: Delivered[] = []
    const first = port.send(notice(1))
    const second = port.send(notice(2))
    expect(delivered).toEqual([])
    port.connect(async (input) => void delivered.push(input), idle, deliverSaved)
    await Promise.all([first, second])
    expect(delivered).toEqual([
      { profile: 'default', sessionId: 's1', text: 'process 1 finished', savedMessageId: 1, appended: 1 },
      { profile: 'default', sessionId: 's1', text: 'process 2 finished', savedMessageId: 2, appended: 1 }
    ])
  })

  it('runs no follow-up turn in a one-shot host (live: false)', async () => {
    const port = new FollowUpPort({ live: false, log: recordingLog() })
    const delivered: unknown[] = []
    port.connect(async (input) => void delivered.push(input), idle, deliverSaved)
    await port.send(notice(3))
    expect(delivered).toEqual([])
  })

  it('logs a failed follow-up turn under its area instead of throwing', async () => {
    const log = recordingLog()
    const port = new FollowUpPort({ live: true, log })
    port.connect(
      async () => {
        throw new Error('Unknown session: s1')
      },
      idle,
      deliverSaved
    )
    await expect(port.send(notice(4))).resolves.toBeUndefined()
    expect(log.warnings).toEqual(['terminal: could not run the follow-up turn for proc_4: Unknown session: s1'])
  })
})
