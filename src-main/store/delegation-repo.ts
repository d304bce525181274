/**
 * SQL of the delegation subsystem: `async_delegations` (durable registry, delivery, retained children, recovery)
 * and `delegation_child_usage` (the child-usage ledger). Reads are drizzle selects on the schema's tables that
 * return camelCase records (field types derived from the column definitions, no casts); writes take the
 * `WriteTx` that only `store.write()` hands out, so they cannot run outside the store's write transaction.
 */
import type Database from 'better-sqlite3'
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, ne, notInArray, sql } from 'drizzle-orm'
import { ormOf, sqliteOf, type SessionStore } from './session-store'
import { existingColumns } from './reconcile'
import { asyncDelegations as d, delegationChildUsage as u, messages as m, sessions as s } from './schema'
import { txDb, type Orm, type WriteTx } from './write-tx'
import { isDelegateSql } from './sql'
import { displayContent } from './content-codec'

/** States that are not terminal; everything else is. */
const ACTIVE = ['running', 'finalizing']
const ACTIVE_STATES = "('running', 'finalizing')"
/** Live retained rows are never deleted by housekeeping: they are the follow-up registry. */
const NOT_LIVE_RETAINED = '(COALESCE(retained, 0) = 0 OR tombstoned_at IS NOT NULL)'

/** A new dispatch (camelCase input; the columns are upstream's). */
export interface NewDispatch {
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

/** '' when unknown: a home whose upstream ALTER-added the column (nullable) may hold NULL. */
const originSessionId = () => sql<string>`COALESCE(${d.origin_session_id}, '')`

/** The fields both retained-children reads select (listRetained, listForSubagents). */
const retainedFields = {
  delegationId: d.delegation_id,
  parentSessionId: d.parent_session_id,
  ownerProfile: d.owner_profile,
  state: d.state,
  retainedAt: d.retained_at,
  completedAt: d.completed_at,
  childSessionId: d.child_session_id,
  childrenJson: d.children_json
}

/** Start-up restore acts only on a ledger in the current shape: an older upstream's rows are its own to deliver. */
const currentLedger = (db: Database.Database) => existingColumns(db, 'async_delegations').has('origin_session_id')

/** `conn`/`orm` are read per call: a lazily opened profile's store swaps connections when its first write creates state.db. */
function repo(conn: () => Database.Database, orm: () => Orm) {
  return {
    // ---- durable rows ----
    insertDispatch(tx: WriteTx, r: NewDispatch): void {
      txDb(tx)
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
      tx: WriteTx,
      id: string,
      status: string,
      completedAt: number,
      eventJson: string | null,
      resultJson: string | null,
      now: number
    ): void {
      txDb(tx)
        .prepare(
          `UPDATE async_delegations SET state = ?, completed_at = ?, event_json = ?, result_json = ?,
           delivery_state = 'pending', updated_at = ? WHERE delegation_id = ?`
        )
        .run(status, completedAt, eventJson, resultJson, now, id)
    },
    deleteDeliveredBefore(tx: WriteTx, cutoff: number): number {
      return txDb(tx)
        .prepare(
          `DELETE FROM async_delegations WHERE delivery_state = 'delivered' AND updated_at < ? AND ${NOT_LIVE_RETAINED}`
        )
        .run(cutoff).changes
    },
    countTerminal(): number {
      const r = orm().select({ n: count() }).from(d).where(notInArray(d.state, ACTIVE)).get()
      return r?.n ?? 0
    },
    /** Delivered/dropped first, oldest first: a result nobody has seen yet is the last thing to go. */
    deleteOldestSettledTerminal(tx: WriteTx, limit: number): number {
      return txDb(tx)
        .prepare(
          `DELETE FROM async_delegations WHERE delegation_id IN (
             SELECT delegation_id FROM async_delegations
             WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state != 'pending' AND ${NOT_LIVE_RETAINED}
             ORDER BY updated_at ASC, delegation_id ASC LIMIT ?)`
        )
        .run(limit).changes
    },
    countPendingTerminal(): number {
      const r = orm()
        .select({ n: count() })
        .from(d)
        .where(and(notInArray(d.state, ACTIVE), eq(d.delivery_state, 'pending')))
        .get()
      return r?.n ?? 0
    },
    deleteOldestPendingTerminal(tx: WriteTx, limit: number): number {
      return txDb(tx)
        .prepare(
          `DELETE FROM async_delegations WHERE delegation_id IN (
             SELECT delegation_id FROM async_delegations
             WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state = 'pending' AND ${NOT_LIVE_RETAINED}
             ORDER BY COALESCE(completed_at, updated_at) ASC, delegation_id ASC LIMIT ?)`
        )
        .run(limit).changes
    },
    getDurable(id: string) {
      return orm()
        .select({
          delegationId: d.delegation_id,
          originSession: d.origin_session,
          state: d.state,
          dispatchedAt: d.dispatched_at,
          completedAt: d.completed_at,
          resultJson: d.result_json,
          deliveryState: d.delivery_state,
          deliveryAttempts: d.delivery_attempts,
          originSessionId: originSessionId()
        })
        .from(d)
        .where(eq(d.delegation_id, id))
        .get()
    },

    // ---- delivery ----
    exists(id: string): boolean {
      return !!orm()
        .select({ one: sql<number>`1` })
        .from(d)
        .where(eq(d.delegation_id, id))
        .get()
    },
    claimDelivery(tx: WriteTx, id: string, claim: string, now: number, staleBefore: number): boolean {
      return (
        txDb(tx)
          .prepare(
            `UPDATE async_delegations SET delivery_claim = ?, delivery_claimed_at = ?, delivery_attempts = delivery_attempts + 1, updated_at = ?
           WHERE delegation_id = ? AND delivery_state = 'pending' AND (delivery_claim IS NULL OR delivery_claimed_at IS NULL OR delivery_claimed_at < ?)`
          )
          .run(claim, now, now, id, staleBefore).changes === 1
      )
    },
    /** Read inside the write that acts on it (release after a failed delivery). */
    deliveryClaim(id: string) {
      return orm()
        .select({ deliveryAttempts: d.delivery_attempts, deliveryClaim: d.delivery_claim })
        .from(d)
        .where(eq(d.delegation_id, id))
        .get()
    },
    markDropped(tx: WriteTx, id: string, now: number): void {
      txDb(tx)
        .prepare(
          `UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ?`
        )
        .run(now, id)
    },
    releaseClaim(tx: WriteTx, id: string, now: number): void {
      txDb(tx)
        .prepare(
          'UPDATE async_delegations SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ?'
        )
        .run(now, id)
    },
    /** pending → delivered, guarded by the claim when one is given. */
    setDelivered(tx: WriteTx, id: string, claim: string | null, now: number): boolean {
      const guard = claim === null ? '' : ' AND delivery_claim = ?'
      const args: unknown[] = claim === null ? [now, now, id] : [now, now, id, claim]
      return (
        txDb(tx)
          .prepare(
            `UPDATE async_delegations SET delivery_state = 'delivered', delivered_at = ?, delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ?
           WHERE delegation_id = ? AND delivery_state = 'pending'${guard}`
          )
          .run(...args).changes === 1
      )
    },
    dropPending(tx: WriteTx, id: string, claim: string | undefined, now: number): boolean {
      const guard = claim === undefined ? '' : ' AND delivery_claim = ?'
      const args: unknown[] = [now, id]
      if (claim !== undefined) args.push(claim)
      return (
        txDb(tx)
          .prepare(
            `UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending'${guard}`
          )
          .run(...args).changes === 1
      )
    },
    /** Terminal rows still waiting for delivery, oldest completion first (upstream restore order). */
    listUndelivered(): Array<{ delegationId: string; eventJson: string }> {
      if (!currentLedger(conn())) return []
      return orm()
        .select({ delegationId: d.delegation_id, eventJson: d.event_json })
        .from(d)
        .where(and(ne(d.state, 'running'), eq(d.delivery_state, 'pending'), isNotNull(d.event_json)))
        .orderBy(asc(d.completed_at), asc(d.delegation_id))
        .all()
        .flatMap((r) => (r.eventJson === null ? [] : [{ delegationId: r.delegationId, eventJson: r.eventJson }]))
    },

    // ---- retained children ----
    setChildren(
      tx: WriteTx,
      id: string,
      childrenJson: string,
      childSessionId: string | null,
      ownerProfile: string,
      now: number
    ): void {
      txDb(tx)
        .prepare(
          `UPDATE async_delegations SET children_json = ?, child_session_id = ?, owner_profile = ?, updated_at = ? WHERE delegation_id = ?`
        )
        .run(childrenJson, childSessionId, ownerProfile, now, id)
    },
    markRetained(tx: WriteTx, id: string, usageJson: string | null, now: number): void {
      txDb(tx)
        .prepare(
          `UPDATE async_delegations SET retained = 1, retained_at = ?, usage_json = ?, updated_at = ? WHERE delegation_id = ? AND tombstoned_at IS NULL`
        )
        .run(now, usageJson, now, id)
    },
    tombstoneRetainedBefore(tx: WriteTx, cutoff: number, now: number): number {
      return txDb(tx)
        .prepare(
          `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE retained = 1 AND tombstoned_at IS NULL AND retained_at < ?`
        )
        .run(now, now, cutoff).changes
    },
    /**
     * Retained rows none of whose child sessions exists any more: another program (upstream's delete/prune of the
     * parent takes its delegate children along) removed the transcript a follow-up would resume.
     */
    tombstoneRetainedWithoutSession(tx: WriteTx, now: number): number {
      return txDb(tx)
        .prepare(
          `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE retained = 1 AND tombstoned_at IS NULL
           AND (child_session_id IS NOT NULL OR json_valid(children_json))
           AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = async_delegations.child_session_id
             OR s.id IN (SELECT json_extract(c.value, '$.session_id') FROM json_each(
               CASE WHEN json_valid(children_json) AND json_type(children_json) = 'array' THEN children_json ELSE '[]' END) c
               WHERE c.type = 'object'))`
        )
        .run(now, now).changes
    },
    tombstoneRetainedBeyond(tx: WriteTx, maxRetained: number, now: number): number {
      return txDb(tx)
        .prepare(
          `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE delegation_id IN (
           SELECT delegation_id FROM async_delegations WHERE retained = 1 AND tombstoned_at IS NULL
           ORDER BY retained_at DESC, rowid DESC LIMIT -1 OFFSET ?)`
        )
        .run(now, now, maxRetained).changes
    },
    /** Any live retained row? (No write at all otherwise: start-up must not take the lock nor create a missing file.) */
    hasLiveRetained(): boolean {
      return !!orm()
        .select({ one: sql<number>`1` })
        .from(d)
        .where(and(eq(d.retained, 1), isNull(d.tombstoned_at)))
        .limit(1)
        .get()
    },
    listRetained() {
      return orm()
        .select(retainedFields)
        .from(d)
        .where(and(eq(d.retained, 1), isNull(d.tombstoned_at)))
        .orderBy(desc(d.retained_at), desc(d.dispatched_at), desc(d.delegation_id)) // no rowid: reads may go through a view
        .all()
    },
    tombstoneRetained(tx: WriteTx, id: string, now: number): boolean {
      return (
        txDb(tx)
          .prepare(
            `UPDATE async_delegations SET tombstoned_at = ?, updated_at = ? WHERE delegation_id = ? AND retained = 1 AND tombstoned_at IS NULL`
          )
          .run(now, now, id).changes === 1
      )
    },

    // ---- recovery ----
    listActive() {
      if (!currentLedger(conn())) return []
      return orm()
        .select({
          delegationId: d.delegation_id,
          ownerPid: d.owner_pid,
          ownerStartedAt: d.owner_started_at,
          originSession: d.origin_session,
          originUiSessionId: d.origin_ui_session_id,
          originSessionId: originSessionId(),
          parentSessionId: d.parent_session_id,
          dispatchedAt: d.dispatched_at,
          taskJson: d.task_json
        })
        .from(d)
        .where(inArray(d.state, ACTIVE))
        .all()
    },
    markAbandoned(tx: WriteTx, id: string, eventJson: string | null, resultJson: string | null, now: number): number {
      return txDb(tx)
        .prepare(
          `UPDATE async_delegations SET state = 'unknown', completed_at = ?, event_json = ?, result_json = ?, delivery_state = 'pending',
               delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND state IN ('running', 'finalizing')`
        )
        .run(now, eventJson, resultJson, now, id).changes
    },

    // ---- subagents read model ----
    listForSubagents(parentSessionId?: string) {
      return orm()
        .select({
          ...retainedFields,
          dispatchedAt: d.dispatched_at,
          retained: d.retained,
          tombstonedAt: d.tombstoned_at,
          // what a row without a child manifest (upstream's dispatch) still says: its task, outcome and summary
          taskJson: d.task_json,
          eventJson: d.event_json,
          resultJson: d.result_json
        })
        .from(d)
        .where(parentSessionId ? eq(d.parent_session_id, parentSessionId) : undefined)
        .orderBy(desc(sql`COALESCE(${d.retained_at}, ${d.completed_at}, ${d.dispatched_at})`))
        .all()
    },

    /**
     * Delegate children of `parentSessionId` (upstream's delegate tool: `parent_session_id` plus
     * `model_config._delegate_from`, both the parent) started in [from, to] whose first user message is `goal`
     * (the child's run starts with the goal as its user message). Callers link only a single match.
     */
    delegateChildrenByGoal(parentSessionId: string, goal: string, from: number, to: number | null) {
      const firstUser = sql<string | null>`(SELECT ${m.content} FROM ${m} WHERE ${m.session_id} = ${s.id}
        AND ${m.role} = 'user' ORDER BY ${m.timestamp}, ${m.id} LIMIT 1)`
      return orm()
        .select({ sessionId: s.id, model: s.model, startedAt: s.started_at })
        .from(s)
        .where(
          and(
            eq(s.parent_session_id, parentSessionId),
            sql`json_valid(${s.model_config}) AND json_extract(${s.model_config}, '$._delegate_from') = ${parentSessionId}`,
            sql`${s.started_at} >= ${from}`,
            to === null ? undefined : sql`${s.started_at} <= ${to}`,
            sql`${firstUser} = ${goal}`
          )
        )
        .limit(3)
        .all()
    },

    /**
     * Every subagent child session (a delegate marker or source, as lineage reads it) of `parentSessionId`, or of
     * any parent: the Subagents page's read of children no delegation row lists (upstream's synchronous delegate
     * tool writes none). One query: the goal is the child's first user message, plus its transcript size and last
     * activity.
     */
    delegateChildSessions(parentSessionId?: string) {
      // the outer row named in full: drizzle leaves a lone table's columns unqualified, and the inner `messages.id`
      // would shadow it
      const firstUser = sql<string | null>`(SELECT ${m.content} FROM ${m} WHERE ${m.session_id} = "sessions"."id"
        AND ${m.role} = 'user' ORDER BY ${m.timestamp}, ${m.id} LIMIT 1)`
      const msgs = sql<number>`(SELECT COUNT(*) FROM ${m} WHERE ${m.session_id} = "sessions"."id" AND ${m.role} != 'system')`
      const chars = sql<number>`(SELECT COALESCE(SUM(LENGTH(${m.content})), 0) FROM ${m}
        WHERE ${m.session_id} = "sessions"."id" AND ${m.role} != 'system')`
      const lastActive = sql<
        number | null
      >`(SELECT MAX(${m.timestamp}) FROM ${m} WHERE ${m.session_id} = "sessions"."id")`
      return orm()
        .select({
          sessionId: s.id,
          parentSessionId: s.parent_session_id,
          model: s.model,
          title: s.title,
          startedAt: s.started_at,
          endedAt: s.ended_at,
          endReason: s.end_reason,
          firstUser,
          messages: msgs,
          chars,
          lastActive
        })
        .from(s)
        .where(
          and(
            parentSessionId ? eq(s.parent_session_id, parentSessionId) : isNotNull(s.parent_session_id),
            sql.raw(isDelegateSql('sessions'))
          )
        )
        .orderBy(desc(s.started_at))
        .all()
        .map((r) => ({ ...r, firstUser: displayContent(r.firstUser) })) // a goal that came with an image, as text
    },

    // ---- messages the delegation subsystem inspects ----
    /** A completion notice already delivered into this session for this delegation (idempotent delivery). */
    findNotice(sessionId: string, displayKind: string, delegationId: string): number | null {
      const row = orm()
        .select({ id: m.id })
        .from(m)
        .where(
          and(
            eq(m.session_id, sessionId),
            eq(m.display_kind, displayKind),
            sql`json_extract(${m.display_metadata}, '$.delegation_id') = ${delegationId}`
          )
        )
        .limit(1)
        .get()
      return row?.id ?? null
    },
    /** Non-system message count and content size of a child transcript. */
    transcriptSize(sessionId: string): { messages: number; chars: number } {
      const r = orm()
        .select({ messages: count(), chars: sql<number>`COALESCE(SUM(LENGTH(${m.content})), 0)` })
        .from(m)
        .where(and(eq(m.session_id, sessionId), ne(m.role, 'system')))
        .get()
      return { messages: r?.messages ?? 0, chars: r?.chars ?? 0 }
    },

    // ---- delegation_child_usage ledger ----
    insertChildUsage(
      tx: WriteTx,
      r: {
        parentSessionId: string
        parentTurnId: string
        childSessionId: string
        usageJson: string
        aggregateJson: string | null
        createdAt: number
      }
    ): void {
      txDb(tx)
        .prepare(
          `INSERT INTO delegation_child_usage (parent_session_id, parent_turn_id, child_session_id, usage_json, aggregate_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`
        )
        .run(r.parentSessionId, r.parentTurnId, r.childSessionId, r.usageJson, r.aggregateJson, r.createdAt)
    },
    listChildUsage(parentSessionId: string) {
      return orm()
        .select({
          parentTurnId: u.parent_turn_id,
          childSessionId: u.child_session_id,
          usageJson: u.usage_json,
          aggregateJson: u.aggregate_json,
          createdAt: u.created_at
        })
        .from(u)
        .where(eq(u.parent_session_id, parentSessionId))
        .orderBy(asc(u.id))
        .all()
    }
  }
}

export type DelegationRepo = ReturnType<typeof repo>

const cache = new WeakMap<SessionStore, DelegationRepo>()

/** Typed access to the delegation tables of one store. */
export function delegationRepo(store: SessionStore): DelegationRepo {
  let r = cache.get(store)
  if (!r)
    cache.set(
      store,
      (r = repo(
        () => sqliteOf(store),
        () => ormOf(store)
      ))
    )
  return r
}
