import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDelegationNotice } from '@shared/contract/delegation-notice'

// Upstream's own formatter's text for five fixed events (scripts/golden/delegation_notices.py).
const golden = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../../test/fixtures/upstream/delegation-notices/notices.json'), 'utf8')
) as Record<'single_ok' | 'single_interrupted' | 'single_error' | 'batch' | 'batch_error', string>
const upstream = (content: string) => parseDelegationNotice({ role: 'user', displayKind: null, content })
const caduceus = (content: string) =>
  parseDelegationNotice({ role: 'user', displayKind: 'async_delegation_complete', content })

describe("upstream's notices", () => {
  it('one task: goal, status, the result (all its lines) and the facts around it', () => {
    const n = upstream(golden.single_ok)!
    expect(n).toMatchObject({ writer: 'upstream', delegationId: 'deleg_0a1b2c3d', status: 'completed', error: null })
    expect(n.tasks).toEqual([
      {
        goal: 'Summarize open issues',
        status: 'completed',
        outcome: 'Three issues are open:\n- #1 crash\n- #2 docs',
        failed: false
      }
    ])
    expect(Object.fromEntries(n.facts)).toMatchObject({
      'Context you provided': 'repo: caduceus',
      Toolsets: 'web, file',
      Role: 'leaf',
      Model: 'm-1',
      'API calls': '3',
      Duration: '12.5s'
    })
  })
  it('interrupted and failed tasks are failures, with what upstream said about them', () => {
    expect(upstream(golden.single_interrupted)!.tasks[0]).toMatchObject({ status: 'interrupted', failed: true })
    expect(upstream(golden.single_interrupted)!.tasks[0]!.outcome).toContain('Partial output:\npartial list')
    const err = upstream(golden.single_error)!
    expect(err.status).toBe('error')
    expect(err.tasks[0]!.outcome).toContain('model refused')
  })
  it('a batch: one entry per task with its own status; a batch failed whole keeps its error', () => {
    const b = upstream(golden.batch)!
    expect(b.tasks).toEqual([
      { goal: 'Count to three', status: 'completed', outcome: 'one two three', failed: false },
      { goal: 'Name a colour', status: 'error', outcome: '(no summary — status=error: timed out)', failed: true }
    ])
    expect(b.status).toBe('failed')
    const whole = upstream(golden.batch_error)!
    expect(whole).toMatchObject({ tasks: [], error: 'pool shut down', status: 'failed' })
  })
  it('only the exact shape: a quoted header, a typed look-alike or another role stays a message', () => {
    const [head, ...rest] = golden.single_ok.split('\n')
    expect(upstream(`> ${golden.single_ok}`)).toBeNull()
    expect(upstream(`${head}\nwhat does this mean?`)).toBeNull()
    expect(upstream(`${head} please explain\n${rest.join('\n')}`)).toBeNull()
    expect(parseDelegationNotice({ role: 'assistant', displayKind: null, content: golden.single_ok })).toBeNull()
    // a row some writer typed as another kind is that kind's
    expect(
      parseDelegationNotice({ role: 'user', displayKind: 'process_complete', content: golden.single_ok })
    ).toBeNull()
  })
})

// The shape src-main/delegation/completion.ts writes (the e2e in delegation-notice.spec.ts reads a live one).
describe("Caduceus's notices", () => {
  it('one task with a result of several lines', () => {
    const n = caduceus(
      '[Background delegation d-1 finished: completed]\nTask: Survey PRs\nResult: 3 open\nTask: not a new task'
    )!
    expect(n).toMatchObject({ writer: 'caduceus', delegationId: 'd-1', status: 'completed' })
    expect(n.tasks).toEqual([
      { goal: 'Survey PRs', status: 'completed', outcome: '3 open\nTask: not a new task', failed: false }
    ])
  })
  it('several tasks, one failed; a delegation that failed with no task', () => {
    const n = caduceus(
      '[Background delegation d-2 finished: failed]\nTask 1: A\nResult: done\nTask 2: B\nError: no summary returned'
    )!
    expect(n.tasks.map((t) => [t.goal, t.outcome, t.failed])).toEqual([
      ['A', 'done', false],
      ['B', 'no summary returned', true]
    ])
    expect(caduceus('[Background delegation d-3 finished: failed]\nError: spawn refused')).toMatchObject({
      tasks: [],
      error: 'spawn refused'
    })
  })
  it('needs its display kind and its exact first line', () => {
    const text = '[Background delegation d-1 finished: completed]\nTask: X\nResult: Y'
    expect(upstream(text)).toBeNull()
    expect(caduceus(`Re: ${text}`)).toBeNull()
  })
})
