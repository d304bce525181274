// Config gate, output buffer and completion persistence (real SessionStore in a temp dir).
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from '../store'
import { OutputBuffer } from './output-buffer'
import { saveProcessCompletion, terminalSettings } from './index'
import { cleanupDirs, tempDir } from './test-fixtures/helpers'
import { rawDb } from '../store/test-fixtures/raw-db'

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

describe('saveProcessCompletion', () => {
  it('appends a process_complete user message and returns its id and text', async () => {
    const store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    try {
      await store.createSession('s1', 'desktop')
      const saved = await saveProcessCompletion(store, {
        profile: 'default',
        sessionId: 's1',
        processId: 'proc_abc',
        command: 'make test',
        exitCode: 1,
        signal: null,
        outputTail: 'FAILED: 2 tests\n'
      })
      expect(saved.sessionId).toBe('s1')
      expect(saved.text).toContain('proc_abc')
      expect(saved.text).toContain('exit code 1')
      expect(saved.text).toContain('FAILED: 2 tests')
      const row = rawDb(store)
        .prepare('SELECT role, content, display_kind, display_metadata FROM messages WHERE id = ?')
        .get(saved.messageId) as Record<string, string>
      expect(row.role).toBe('user')
      expect(row.display_kind).toBe('process_complete')
      expect(JSON.parse(row.display_metadata)).toMatchObject({ process_id: 'proc_abc', exit_code: 1 })
      expect(row.content).toBe(saved.text)
    } finally {
      store.close()
    }
  })
})
