// The last-resort handler: an error nothing caught is logged (once per kind, one line) and the process lives on.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'cad-lastresort-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('installLastResort', () => {
  it('an uncaught exception and an unhandled rejection are logged and the host keeps running', async () => {
    const file = join(dir, 'errors.log')
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', resolve(import.meta.dirname, '../test-fixtures/crashy-host.ts'), file],
      { cwd: resolve(import.meta.dirname, '../../..') }
    )
    expect(stdout.trim()).toBe('still alive')
    const log = readFileSync(file, 'utf8')
    expect(log).toMatch(
      /uncaught exception \(the host keeps running\): TypeError: Cannot convert object to primitive value/
    )
    expect(log).toMatch(/unhandled rejection \(the host keeps running\): Error: nobody awaited me/)
    // Twenty of the same bug: written once.
    expect(log.match(/the same bug again/g)).toHaveLength(1)
  })
})
