/**
 * SQL of the delegation subsystem: `async_delegations` (durable registry, delivery, retained children, recovery)
 * and `delegation_child_usage` (the child-usage ledger). Upstream column names; camelCase API. Write functions
 * must run inside `store.write()` — the delegation registry keeps its transactions, this file only owns the SQL.
 */
import type Database from 'better-sqlite3'
import { sqliteOf, type SessionStore } from './session-store'
import { existingColumns } from './reconcile'

/** States that are not terminal; everything else is. */
const ACTIVE_STATES = "('running', 'finalizing')"
/** Live retained rows are never deleted by housekeeping: they are the follow-up registry. */
const NOT_LIVE_RETAINED = '(COALESCE(retained, 0) = 0 OR tombstoned_at IS NOT NULL)'

export interface RetainedDelegationRow {
  delegation_id: string
  parent_session_id: string | null
  owner_profile: string | null
  state: string
  retained_at: number | null
  completed_at: number | null
  child_session_id: string | null
  children_json: string | null
}

export interface DurableDelegationRow {
  delegation_id: string
  origin_session: string
  state: string
  dispatched_at: number
  completed_at: number | null
  result_json: string | null
  delivery_state: string
  delivery_attempts: number
  origin_session_id: string | null
}

export interface ActiveDelegationRow {
  delegation_id: string
  owner_pid: number | null
  owner_started_at: number | null
  origin_session: string
  origin_ui_session_id: string
  origin_session_id: string | null
  parent_session_id: string | null
  dispatched_at: number
  task_json: string | null
}

export interface SubagentDelegationRow {
  delegation_id: string
  parent_session_id: string | null
  owner_profile: string | null
  state: string
  dispatched_at: number | null
  completed_at: number | null
  retained: number | null
  retained_at: number | null
  tombstoned_at: number | null
  child_session_id: string | null
  children_json: string | null
}

export interface DispatchRow {
  delegationId: string
  originSession: string
  originUiSessionId: string
  parentSessionId: string | null
  dispatchedAt: number
  now: number
  ownerPid: number
  ownerStartedAt: number | null
  taskJson: string | null
  originSessionId: string
}

export interface ChildUsageRow {
  parent_turn_id: string
  child_session_id: string
  usage_json: string
  aggregate_json: string | null
  created_at: number
}

/** `conn` is read per call: a lazily opened profile's store swaps connections when its first write creates state.db. */
/** Start-up restore acts only on a ledger in the current shape: an older upstream's rows are its own to deliver. */
const currentLedger = (db: Database.Database) => existingColumns(db, 'async_delegations').has('origin_session_id')

function repo(conn: () => Database.Database) {
  return {
    // ---- durable rows ----
    insertDispatch(r: DispatchRow): void {
      conn()
        .prepare(
          `INSERT OR REPLACE INTO async_delegations
          (delegation_id, origin_session, origin_ui_session_id, parent_session_id, state, dispatched_at, updated_at,
           delivery_state, delivery_attempts, owner_pid, owner_started_at, task_json, origin_session_id)
         VALUES (?, ?, ?, ?, 'running', ?, ?, 'pending', 0, ?, ?, ?, ?)`
        )
        .run(
          r.delegationId,
          r.originSession,
          r.originUiSessionId,
          r.parentSessionId,
          r.dispatchedAt,
          r.now,
          r.ownerPid,
          r.ownerStartedAt,
          r.taskJson,
          r.originSessionId
        )
    },
    recordCompletion(
      id: string,
      status: string,
      completedAt: number,
      eventJson: string | null,
      resultJson: string | null,
      now: number
    ): void {
      conn()
        .prepare(
          `UPDATE async_delegations SET state = ?, completed_at = ?, event_json = ?, result_json = ?,
           delivery_state = 'pending', updated_at = ? WHERE delegation_id = ?`
        )
        .run(status, completedAt, eventJson, resultJson, now, id)
    },
    deleteDeliveredBefore(cutoff: number): number {
      return conn()
        .prepare(
          `DELETE FROM async_delegations WHERE delivery_state = 'delivered' AND updated_at < ? AND ${NOT_LIVE_RETAINED}`
        )
        .run(cutoff).changes
    },
    countTerminal(): number {
      return (
        conn().prepare(`SELECT COUNT(*) AS n FROM async_delegations WHERE state NOT IN ${ACTIVE_STATES}`).get() as {
          n: number
        }
      ).n
    },
    /** Delivered/dropped first, oldest first: a result nobody has seen yet is the last thing to go. */
    deleteOldestSettledTerminal(limit: number): number {
      return conn()
        .prepare(
          `DELETE FROM async_delegations WHERE delegation_id IN (
             SELECT delegation_id FROM async_delegations
             WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state != 'pending' AND ${NOT_LIVE_RETAINED}
             ORDER BY updated_at ASC, delegation_id ASC LIMIT ?)`
        )
        .run(limit).changes
    },
    countPendingTerminal(): number {
      return (
        conn()
          .prepare(
            `SELECT COUNT(*) AS n FROM async_delegations WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state = 'pending'`
          )
          .get() as { n: number }
      ).n
    },
    deleteOldestPendingTerminal(limit: number): number {
      return conn()
        .prepare(
          `DELETE FROM async_delegations WHERE delegation_id IN (
             SELECT delegation_id FROM async_delegations
             WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state = 'pending' AND ${NOT_LIVE_RETAINED}
             ORDER BY COALESCE(completed_at, updated_at) ASC, delegation_id ASC LIMIT ?)`
        )
        .run(limit).changes
    },
    getDurable(id: string): DurableDelegationRow | undefined {
      return conn()
        .prepare(
          `SELECT delegation_id, origin_session, state, dispatched_at, completed_at, result_json, delivery_state,
              delivery_attempts, origin_session_id FROM async_delegations WHERE delegation_id = ?`
        )
        .get(id) as DurableDelegationRow | undefined
    },

    // ---- delivery ----
    exists(id: string): boolean {
      return !!conn().prepare('SELECT 1 FROM async_delegations WHERE delegation_id = ?').get(id)
    },
    claimDelivery(id: string, claim: string, now: number, staleBefore: number): boolean {
      return (
        conn()
          .prepare(
            `UPDATE async_delegations SET delivery_claim = ?, delivery_claimed_at = ?, delivery_attempts = delivery_attempts + 1, updated_at = ?
           WHERE delegation_id = ? AND delivery_state = 'pending' AND (delivery_claim IS NULL OR delivery_claimed_at IS NULL OR delivery_claimed_at < ?)`
          )
          .run(claim, now, now, id, staleBefore).changes === 1
      )
    },
    deliveryClaim(id: string): { delivery_attempts: number; delivery_claim: string | null } | undefined {
      return conn()
        .prepare('SELECT delivery_attempts, delivery_claim FROM async_delegations WHERE delegation_id = ?')
        .get(id) as { delivery_attempts: number; delivery_claim: string | null } | undefined
    },
    markDropped(id: string, now: number): void {
      conn()
        .prepare(
          `UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ?`
        )
        .run(now, id)
    },
    releaseClaim(id: string, now: number): void {
      conn()
        .prepare(
          'UPDATE async_delegations SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ?'
        )
        .run(now, id)
    },
    /** pending → delivered, guarded by the claim when one is given. */
    setDelivered(id: string, claim: string | null, now: number): boolean {
      const guard = claim === null ? '' : ' AND delivery_claim = ?'
      const args: unknown[] = claim === null ? [now, now, id] : [now, now, id, claim]
      return (
        conn()
          .prepare(
            `UPDATE async_delegations SET delivery_state = 'delivered', delivered_at = ?, delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ?
           WHERE delegation_id = ? AND delivery_state = 'pending'${guard}`
          )
          .run(...args).changes === 1
      )
    },
    dropPending(id: string, claim: string | undefined, now: number): boolean {
      const guard = claim === undefined ? '' : ' AND delivery_claim = ?'
      const args: unknown[] = [now, id]
      if (claim !== undefined) args.push(claim)
      return (
        conn()
          .prepare(
            `UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending'${guard}`
          )
          .run(...args).changes === 1
      )
    },
    /** Terminal rows still waiting for delivery, oldest completion first (upstream restore order). */
    listUndelivered(): Array<{ delegation_id: string; event_json: string }> {
      if (!currentLedger(conn())) return []
      return conn()
        .prepare(
          `SELECT delegation_id, event_json FROM async_delegations
       WHERE state != 'running' AND delivery_state = 'pending' AND event_json IS NOT NULL
       ORDER BY completed_at ASC, delegation_id ASC`
        )
        .all() as Array<{ delegation_id: string; event_json: string }>
    },

    // ---- retained children ----
    setChildren(
      id: string,
      childrenJson: string,
      childSessionId: string | null,
      ownerProfile: string,
      now: number
    ): void {
      conn()
        .prepare(
          `UPDATE async_delegations SET children_json = ?, child_session_id = ?, owner_profile = ?, updated_at = ? WHERE delegation_id = ?`
        )
        .run(childrenJson, childSessionId, ownerProfile, now, id)
    },
    markRetained(id: string, usageJson: string | null, now: number): void {
      conn()
        .prepare(
          `UPDATE async_delegations SET retained = 1, retained_at = ?, usage_json = ?, updated_at = ? WHERE delegation_id = ? AND tombstoned_at IS NULL`
        )
        .run(now, usageJson, now, id)
    },
    tombstoneRetainedBefore(cutoff: number, now: number): number {
      return conn()
        .prepare(
          `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE retained = 1 AND tombstoned_at IS NULL AND retained_at < ?`
        )
        .run(now, now, cutoff).changes
    },
    tombstoneRetainedBeyond(maxRetained: number, now: number): number {
      return conn()
        .prepare(
          `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE delegation_id IN (
           SELECT delegation_id FROM async_delegations WHERE retained = 1 AND tombstoned_at IS NULL
           ORDER BY retained_at DESC, rowid DESC LIMIT -1 OFFSET ?)`
        )
        .run(now, now, maxRetained).changes
    },
    /** Any live retained row? (No write at all otherwise: start-up must not take the lock nor create a missing file.) */
    hasLiveRetained(): boolean {
      return !!conn()
        .prepare('SELECT 1 FROM async_delegations WHERE retained = 1 AND tombstoned_at IS NULL LIMIT 1')
        .get()
    },
    listRetained(): RetainedDelegationRow[] {
      return conn()
        .prepare(
          `SELECT delegation_id, parent_session_id, owner_profile, state, retained_at, completed_at, child_session_id, children_json
       FROM async_delegations WHERE retained = 1 AND tombstoned_at IS NULL
       ORDER BY retained_at DESC, dispatched_at DESC, delegation_id DESC` // no rowid: reads may go through a view
        )
        .all() as RetainedDelegationRow[]
    },
    tombstoneRetained(id: string, now: number): boolean {
      return (
        conn()
          .prepare(
            `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE delegation_id = ? AND retained = 1 AND tombstoned_at IS NULL`
          )
          .run(now, now, id).changes === 1
      )
    },

    // ---- recovery ----
    listActive(): ActiveDelegationRow[] {
      if (!currentLedger(conn())) return []
      return conn()
        .prepare(
          `SELECT delegation_id, owner_pid, owner_started_at, origin_session, origin_ui_session_id, origin_session_id,
              parent_session_id, dispatched_at, task_json FROM async_delegations WHERE state IN ('running', 'finalizing')`
        )
        .all() as ActiveDelegationRow[]
    },
    markAbandoned(id: string, eventJson: string | null, resultJson: string | null, now: number): number {
      return conn()
        .prepare(
          `UPDATE async_delegations SET state = 'unknown', completed_at = ?, event_json = ?, result_json = ?, delivery_state = 'pending',
               delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND state IN ('running', 'finalizing')`
        )
        .run(now, eventJson, resultJson, now, id).changes
    },

    // ---- subagents read model ----
    listForSubagents(parentSessionId?: string): SubagentDelegationRow[] {
      return conn()
        .prepare(
          `SELECT delegation_id, parent_session_id, owner_profile, state, dispatched_at, completed_at, retained, retained_at, tombstoned_at,
           child_session_id, children_json FROM async_delegations ${parentSessionId ? 'WHERE parent_session_id = ?' : ''}
         ORDER BY COALESCE(retained_at, completed_at, dispatched_at) DESC`
        )
        .all(...(parentSessionId ? [parentSessionId] : [])) as SubagentDelegationRow[]
    },

    // ---- messages the delegation subsystem inspects ----
    /** A completion notice already delivered into this session for this delegation (idempotent delivery). */
    findNotice(sessionId: string, displayKind: string, delegationId: string): number | null {
      const row = conn()
        .prepare(
          `SELECT id FROM messages WHERE session_id = ? AND display_kind = ? AND json_extract(display_metadata, '$.delegation_id') = ? LIMIT 1`
        )
        .get(sessionId, displayKind, delegationId) as { id: number } | undefined
      return row?.id ?? null
    },
    /** Non-system message count and content size of a child transcript. */
    transcriptSize(sessionId: string): { m: number; c: number } {
      return conn()
        .prepare(
          `SELECT COUNT(*) AS m, COALESCE(SUM(LENGTH(content)), 0) AS c FROM messages WHERE session_id = ? AND role != 'system'`
        )
        .get(sessionId) as { m: number; c: number }
    },

    // ---- delegation_child_usage ledger ----
    insertChildUsage(r: {
      parentSessionId: string
      parentTurnId: string
      childSessionId: string
      usageJson: string
      aggregateJson: string | null
      createdAt: number
    }): void {
      conn()
        .prepare(
          `INSERT INTO delegation_child_usage (parent_session_id, parent_turn_id, child_session_id, usage_json, aggregate_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`
        )
        .run(r.parentSessionId, r.parentTurnId, r.childSessionId, r.usageJson, r.aggregateJson, r.createdAt)
    },
    listChildUsage(parentSessionId: string): ChildUsageRow[] {
      return conn()
        .prepare(
          `SELECT parent_turn_id, child_session_id, usage_json, aggregate_json, created_at FROM delegation_child_usage
       WHERE parent_session_id = ? ORDER BY id ASC`
        )
        .all(parentSessionId) as ChildUsageRow[]
    }
  }
}

export type DelegationRepo = ReturnType<typeof repo>

const cache = new WeakMap<SessionStore, DelegationRepo>()

/** Typed access to the delegation tables of one store. */
export function delegationRepo(store: SessionStore): DelegationRepo {
  let r = cache.get(store)
  if (!r) cache.set(store, (r = repo(() => sqliteOf(store))))
  return r
}
