// The follow-up port that replaced runtime.ts's late-bound `let gateway`: notices saved before the gateway is
// connected wait and run in order; a one-shot host saves at once and runs none; a follow-up turn that fails after
// its notice was saved is a warning, while a notice that was never saved is the caller's to keep (a rejection).
import { describe, expect, it } from 'vitest'
import type { Logger } from '@shared/contract/log'
import { FollowUpPort } from './follow-ups'

/** What the gateway's deliverSaved receives (derived from the port, as the structure test asks of test types). */
type Delivery = Parameters<Parameters<FollowUpPort['connect']>[0]>[0]

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = []
  return { warnings, debug() {}, info() {}, warn: (name, m) => void warnings.push(`${name}: ${m}`), error() {} }
}

const saver = (saved: string[], n: number) => async (tip: string) => {
  saved.push(`${n}@${tip}`)
  return { messageId: n, text: `process ${n} finished` }
}

/** A conversation continued by compression: s1 goes on in s1-tip. */
const tipOf = async (_profile: string, id: string) => `${id}-tip`

describe('FollowUpPort', () => {
  it('holds notices sent before the gateway is connected and delivers them in order after', async () => {
    const port = new FollowUpPort({ live: true, log: recordingLog(), tipOf })
    const saved: string[] = []
    const turns: Array<{ sessionId: string; turn: unknown }> = []
    const first = port.saveAndRun('terminal', 'proc_1', 'default', 's1', saver(saved, 1))
    const second = port.saveAndRun('terminal', 'proc_2', 'default', 's1', saver(saved, 2))
    expect(saved).toEqual([])
    port.connect(async (input: Delivery) => {
      turns.push({ sessionId: input.sessionId, turn: await input.save('s1-tip') })
    })
    await Promise.all([first, second])
    expect(saved).toEqual(['1@s1-tip', '2@s1-tip'])
    expect(turns).toEqual([
      { sessionId: 's1', turn: { messageId: 1, text: 'process 1 finished' } },
      { sessionId: 's1', turn: { messageId: 2, text: 'process 2 finished' } }
    ])
  })

  it('saves at once into the live tip and runs no follow-up turn in a one-shot host (live: false)', async () => {
    const port = new FollowUpPort({ live: false, log: recordingLog(), tipOf })
    const saved: string[] = []
    const delivered: unknown[] = []
    port.connect(async (input) => void delivered.push(input))
    await port.saveAndRun('terminal', 'proc_3', 'default', 's1', saver(saved, 3))
    expect(saved).toEqual(['3@s1-tip'])
    expect(delivered).toEqual([])
  })

  it('logs a follow-up turn that fails after its notice was saved; rejects when the notice was not saved', async () => {
    const log = recordingLog()
    const port = new FollowUpPort({ live: true, log, tipOf })
    let saveFirst = true
    port.connect(async (input) => {
      if (saveFirst) await input.save('s1')
      throw new Error('The host is shutting down.')
    })
    await expect(port.saveAndRun('terminal', 'proc_4', 'default', 's1', saver([], 4))).resolves.toBeUndefined()
    expect(log.warnings).toEqual(['terminal: could not run the follow-up turn for proc_4: The host is shutting down.'])
    saveFirst = false
    await expect(port.saveAndRun('terminal', 'proc_5', 'default', 's1', saver([], 5))).rejects.toThrow(/shutting down/)
  })
})
