/**
 * `cad_pending_notices`: follow-up notices (a finished background process's) waiting to be appended to their session.
 * A notice is recorded the moment it exists and deleted by the same transaction that appends it as a message, so it
 * is appended exactly once: by the host that recorded it once the parent's turn is over, or, when that host died
 * first (a crash, a kill -9), by the next host to start on the home. The table is created by the first record (a
 * write), never by a read; a home without it has nothing pending.
 */
import { asc, eq } from 'drizzle-orm'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { cadPendingNotices as t } from './schema'
import { addColumnSql, columnFacts, createTableSql } from './schema/ddl'
import { existingColumns } from './reconcile'
import { appendRows } from './message-write'
import { requireId } from './errors'
import { hasTable, stmt } from './stmt-cache'
import { ormOf, sqliteOf, type SessionStore } from './session-store'
import { txDb, txOrm, type WriteTx } from './write-tx'

const TABLE = getTableConfig(t).name
const FACTS = columnFacts(t)

/** Who will append it: a host process (pid + its start time) and which of its host graphs. */
export interface NoticeOwner {
  pid: number
  started: number | null
  token: string
}

/** A notice to keep until it is appended; its message is stored as given. */
export interface NewPendingNotice {
  noticeId: string
  sessionId: string
  role: string
  content: string
  displayKind: string | null
  displayMetadata: Record<string, unknown> | null
  owner: NoticeOwner
  at: number
}

const fields = {
  noticeId: t.notice_id,
  sessionId: t.session_id,
  content: t.content,
  ownerPid: t.owner_pid,
  ownerStarted: t.owner_started,
  ownerToken: t.owner_token,
  createdAt: t.created_at
}

function repo(store: SessionStore) {
  /** Creates the table (and any column an older Caduceus's lacks) inside a write. */
  const ensure = (tx: WriteTx): void => {
    const db = txDb(tx)
    if (!hasTable(db, TABLE)) return void db.exec(createTableSql(t))
    const have = existingColumns(db, TABLE)
    for (const c of FACTS) if (!have.has(c.name)) db.exec(addColumnSql(TABLE, c))
  }
  return {
    /** Keeps the notice (a second record of the same id changes nothing). */
    record(tx: WriteTx, n: NewPendingNotice): void {
      requireId(n.sessionId)
      ensure(tx)
      txOrm(tx)
        .insert(t)
        .values({
          notice_id: n.noticeId,
          session_id: n.sessionId,
          role: n.role,
          content: n.content,
          display_kind: n.displayKind,
          display_metadata: n.displayMetadata ? JSON.stringify(n.displayMetadata) : null,
          owner_pid: n.owner.pid,
          owner_started: n.owner.started,
          owner_token: n.owner.token,
          created_at: n.at
        })
        .onConflictDoNothing()
        .run()
    },
    /** Every notice still waiting, oldest first (nothing on a home without the table). */
    pending() {
      if (!hasTable(sqliteOf(store), TABLE)) return []
      return ormOf(store).select(fields).from(t).orderBy(asc(t.created_at), asc(t.notice_id)).all()
    },
    /**
     * Appends the notice to `sessionId` and forgets it, in the caller's transaction: the message id, or null when
     * it is no longer pending (another host appended it) or the session is gone (deleted: the notice is dropped).
     */
    append(tx: WriteTx, noticeId: string, sessionId: string): number | null {
      requireId(sessionId)
      if (!hasTable(txDb(tx), TABLE)) return null
      const row = txOrm(tx).select().from(t).where(eq(t.notice_id, noticeId)).get()
      if (!row) return null
      txOrm(tx).delete(t).where(eq(t.notice_id, noticeId)).run()
      // A session deleted since has no conversation to continue: the notice goes with it.
      if (!stmt(txDb(tx), 'SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) return null
      const meta = row.display_metadata ? (JSON.parse(row.display_metadata) as Record<string, unknown>) : null
      const [id] = appendRows(txDb(tx), sessionId, [
        { role: row.role, content: row.content, displayKind: row.display_kind, displayMetadata: meta }
      ])
      tx.touch(sessionId)
      return id ?? null
    },
    /** A host closing hands what it still holds to whichever host starts next (its own process lives on). */
    disown(tx: WriteTx, token: string): void {
      if (!hasTable(txDb(tx), TABLE)) return
      txOrm(tx)
        .update(t)
        .set({ owner_pid: null, owner_started: null, owner_token: null })
        .where(eq(t.owner_token, token))
        .run()
    }
  }
}

export type PendingNoticesRepo = ReturnType<typeof repo>

/** The pending-notice table of one profile's store. */
export function pendingNoticesRepo(store: SessionStore): PendingNoticesRepo {
  return repo(store)
}
