import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseProcessNotice } from '@shared/contract/process-notice'

// Upstream's own formatter's text for eight fixed events (scripts/golden/process_notices.py).
type Name =
  'exit_ok' | 'exit_fail' | 'sigterm' | 'killed' | 'lost' | 'failed_start' | 'watch_match' | 'watch_match_suppressed'
const golden = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../../test/fixtures/upstream/process-notices/notices.json'), 'utf8')
) as Record<Name, string>
const upstream = (content: string) => parseProcessNotice({ role: 'user', displayKind: null, content })
const caduceus = (content: string) => parseProcessNotice({ role: 'user', displayKind: 'process_complete', content })
const CMD = 'npm test -- --watch=false'

describe("upstream's notices", () => {
  it('an exit: id, how it ended, exit code, command and output (the closing bracket is not output)', () => {
    expect(upstream(golden.exit_ok)).toEqual({
      writer: 'upstream',
      kind: 'exit',
      processId: 'proc_5e6f7a8b9c0d',
      how: 'completed normally',
      exitCode: '0',
      failed: false,
      command: CMD,
      output: 'Tests: 12 passed\nDone in 3.1s',
      pattern: null,
      suppressed: null
    })
    expect(upstream(golden.exit_fail)).toMatchObject({ how: 'exited', exitCode: '1', failed: true })
    expect(upstream(golden.exit_fail)!.output).toBe('FAIL src/a.test.ts\n  expected 2, got 3')
  })
  it('every way upstream says a process ended is a failure but a normal completion', () => {
    expect(upstream(golden.sigterm)).toMatchObject({
      how: 'exited (SIGTERM)',
      exitCode: '143',
      failed: true,
      output: ''
    })
    expect(upstream(golden.killed)).toMatchObject({
      how: 'terminated by user (SIGTERM)',
      exitCode: '-15',
      failed: true
    })
    expect(upstream(golden.lost)).toMatchObject({ exitCode: 'None', failed: true })
    expect(upstream(golden.lost)!.how).toMatch(/^marked lost/)
    expect(upstream(golden.failed_start)).toMatchObject({ how: 'failed to start', exitCode: '127', failed: true })
  })
  it('a watch-pattern match: the pattern, the matched output and how many earlier matches were held back', () => {
    expect(upstream(golden.watch_match)).toMatchObject({
      kind: 'watch',
      pattern: 'ERROR',
      output: 'ERROR: port 3000 in use',
      suppressed: null,
      failed: false
    })
    expect(upstream(golden.watch_match_suppressed)).toMatchObject({
      pattern: 'ready in',
      output: 'ready in 80ms',
      suppressed: 4
    })
  })
  it('only the exact shape: a quoted, typed or cut look-alike, another role or another kind stays a message', () => {
    const [head] = golden.exit_ok.split('\n')
    expect(upstream(`> ${golden.exit_ok}`)).toBeNull()
    expect(upstream(`${head}\nwhat does this mean?]`)).toBeNull()
    expect(upstream(golden.exit_ok.slice(0, -1))).toBeNull() // no closing bracket
    expect(upstream(`${head!.slice(0, -1)} I think.\n${golden.exit_ok.split('\n').slice(1).join('\n')}`)).toBeNull()
    expect(upstream('[IMPORTANT: Background process x completed normally (exit code 0).]')).toBeNull()
    expect(parseProcessNotice({ role: 'assistant', displayKind: null, content: golden.exit_ok })).toBeNull()
    expect(caduceus(golden.exit_ok)).toBeNull()
    expect(
      parseProcessNotice({ role: 'user', displayKind: 'async_delegation_complete', content: golden.exit_ok })
    ).toBeNull()
  })
})

// The shape src-main/tools/completion.ts writes (src-main/tools/support.test.ts pins that text).
describe("Caduceus's notices", () => {
  const notice = (exitCode: number | null, signal: string | null, outputTail: string) =>
    [
      `[Background process proc_1 finished: ${exitCode !== null ? `exit code ${exitCode}` : signal ? `signal ${signal}` : 'unknown status'}]`,
      'Command: make test',
      outputTail.trim() ? `Output (tail):\n${outputTail.trimEnd()}` : 'Output: (none)'
    ].join('\n')
  it('an exit code, a signal, an unknown end; the output tail or none', () => {
    expect(caduceus(notice(0, null, 'ok\nall passed\n'))).toEqual({
      writer: 'caduceus',
      kind: 'exit',
      processId: 'proc_1',
      how: 'exit code 0',
      exitCode: '0',
      failed: false,
      command: 'make test',
      output: 'ok\nall passed',
      pattern: null,
      suppressed: null
    })
    expect(caduceus(notice(2, null, 'FAILED'))).toMatchObject({ how: 'exit code 2', failed: true, output: 'FAILED' })
    expect(caduceus(notice(null, 'SIGKILL', ''))).toMatchObject({ how: 'signal SIGKILL', exitCode: null, failed: true })
    expect(caduceus(notice(null, null, ''))).toMatchObject({ how: 'unknown status', failed: true, output: '' })
  })
  it('only under its display kind and in its shape', () => {
    const text = notice(0, null, 'ok')
    expect(upstream(text)).toBeNull()
    expect(caduceus(`${text.split('\n')[0]}\nplease look at this`)).toBeNull()
    expect(caduceus(`${text.split('\n')[0]} now\n${text.split('\n').slice(1).join('\n')}`)).toBeNull()
  })
})
