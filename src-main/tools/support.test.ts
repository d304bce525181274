// Config gate, output buffer and the completion notice's message.
import { afterEach, describe, expect, it } from 'vitest'
import { OutputBuffer } from './output-buffer'
import { processCompletionMessage, terminalSettings } from './index'
import { cleanupDirs } from './test-fixtures/helpers'

afterEach(() => cleanupDirs())

describe('terminalSettings', () => {
  it('is off unless terminal.enabled is exactly true', () => {
    expect(terminalSettings({})).toEqual({ enabled: false, cwd: null })
    expect(terminalSettings({ terminal: { enabled: 'yes' } }).enabled).toBe(false)
    expect(terminalSettings({ terminal: 'broken' }).enabled).toBe(false)
    expect(terminalSettings(null).enabled).toBe(false)
    expect(terminalSettings({ terminal: { enabled: true, cwd: '/srv/work' } })).toEqual({
      enabled: true,
      cwd: '/srv/work'
    })
    expect(terminalSettings({ terminal: { enabled: true, cwd: 'relative/dir' } }).cwd).toBeNull()
  })
})

describe('OutputBuffer', () => {
  it('keeps head and tail and counts what was dropped', () => {
    const b = new OutputBuffer({ head: 3, tail: 4 })
    b.append('abc')
    b.append('defghij')
    expect(b.text()).toBe('abc\n[… 3 chars omitted …]\nghij')
    expect(b.truncated).toBe(true)
    expect(b.lastChars(2)).toBe('ij')
    const small = new OutputBuffer({ tail: 10 })
    small.append('hi')
    expect(small.text()).toBe('hi')
    expect(small.truncated).toBe(false)
  })
})

describe('processCompletionMessage', () => {
  it('is a process_complete user message naming the process, its exit and its output tail', () => {
    const msg = processCompletionMessage({
      profile: 'default',
      sessionId: 's1',
      processId: 'proc_abc',
      command: 'make test',
      exitCode: 1,
      signal: null,
      outputTail: 'FAILED: 2 tests\n'
    })
    expect(msg.role).toBe('user')
    expect(msg.displayKind).toBe('process_complete')
    expect(msg.displayMetadata).toEqual({
      process_id: 'proc_abc',
      exit_code: 1,
      signal: null,
      delivery_notice: 'completion'
    })
    expect(msg.content).toBe(
      '[Background process proc_abc finished: exit code 1]\nCommand: make test\nOutput (tail):\nFAILED: 2 tests'
    )
  })
})
