/** Demo rows for `async_delegations` and the `delegation_child_usage` ledger (hermes-spec §2.2). */
import type { SessionStore } from '../session-store'
import type { Rng } from './rng'
import { sqliteOf } from '../session-store'

export function writeDelegations(
  store: SessionStore,
  rng: Rng,
  parents: string[],
  now: number,
  spawnChild: (parentId: string, at: number) => string
): void {
  const insert = sqliteOf(store)
    .prepare(`INSERT INTO async_delegations (delegation_id, origin_session, origin_ui_session_id, parent_session_id,
      state, dispatched_at, completed_at, updated_at, event_json, result_json, delivery_state, delivery_attempts, delivered_at,
      owner_pid, owner_started_at, task_json, origin_session_id, child_session_id, children_json, retained, retained_at,
      tombstoned_at, owner_profile, usage_json)
    VALUES (@id, '', '', @parent, @state, @at, @done, @updated, @event, @result, @delivery, @attempts, @delivered, 4242, @ownerStart,
      @task, '', @child, @children, @retained, @retainedAt, @tomb, 'default', @usage)`)
  const ledger = sqliteOf(store)
    .prepare(`INSERT INTO delegation_child_usage (parent_session_id, parent_turn_id, child_session_id, usage_json,
      aggregate_json, created_at) VALUES (?, ?, ?, ?, ?, ?)`)

  const plans = [
    { state: 'completed', children: 1, retained: true, tomb: false },
    { state: 'completed', children: 2, retained: true, tomb: false },
    { state: 'completed', children: 1, retained: true, tomb: true },
    { state: 'error', children: 1, retained: false, tomb: false },
    // no 'running' row: its owner (pid 4242) is never alive, so every `serve --demo` turned it into a failure
    // notice on the newest session and marked that session's cost partial
    { state: 'completed', children: 1, retained: true, tomb: false }
  ]
  plans.forEach((p, i) => {
    const parent = parents[i % parents.length]
    const at = (store.getSession(parent)?.startedAt ?? now - 86400) + 30
    const goal = [
      'Collect failing test names',
      'Summarize open issues',
      'Check dependency licenses',
      'Benchmark the parser',
      'Draft release notes'
    ][i]
    const children = Array.from({ length: p.children }, (_, k) => {
      const sessionId = spawnChild(parent, at)
      return {
        subagent_id: `sa-${k}-${rng.hex(8)}`,
        session_id: sessionId,
        model: 'demo-model',
        goal: goal.slice(0, 200)
      }
    })
    const done = p.state === 'running' ? null : at + 600
    const costs = children.map(() => Math.round(rng.int(5, 80)) / 1000)
    const usage = {
      cost_usd: costs.reduce((a, b) => a + b, 0),
      tokens: { input: 1200 * p.children, output: 300 * p.children }
    }
    const delegationId = `deleg_${rng.hex(8)}`
    insert.run({
      id: delegationId,
      parent,
      state: p.state,
      at,
      done,
      updated: done ?? at,
      event: done ? JSON.stringify({ delegation_id: delegationId, status: p.state }) : null,
      result: done
        ? JSON.stringify({
            status: p.state,
            summary: `${goal}: ${p.state === 'error' ? 'failed (tool timeout)' : 'done'}`
          })
        : null,
      delivery: done ? 'delivered' : 'pending',
      attempts: done ? 1 : 0,
      delivered: done ? done + 2 : null,
      ownerStart: Math.floor(at) - 100,
      task: JSON.stringify({
        goal,
        toolsets: ['terminal', 'file'],
        role: 'worker',
        model: 'demo-model',
        is_batch: p.children > 1
      }),
      child: p.children === 1 ? children[0].session_id : null,
      children: JSON.stringify(children),
      retained: p.retained ? 1 : null,
      retainedAt: p.retained ? (done ?? at) + 1 : null,
      tomb: p.tomb ? (done ?? at) + 3600 : null,
      usage: p.retained ? JSON.stringify(usage) : null
    })
    if (done) {
      children.forEach((c, k) =>
        ledger.run(
          parent,
          `turn-${i + 1}`,
          c.session_id,
          JSON.stringify({ cost_usd: costs[k], tokens: { input: 1200, output: 300 } }),
          k === 0 ? JSON.stringify({ session_estimated_cost_usd: usage.cost_usd }) : null,
          done
        )
      )
    }
    void store.write((tx) => tx.touch(parent)) // nested in the demo's outer write: a synchronous savepoint
  })
}
