/**
 * Test helpers (imported by *.test.ts only): a real state.db in a temp home, opened through the store's
 * own `SessionStore`, so the schema and lineage rules under test are the store's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore } from '../store'
import { createDelegateTool } from './delegate-tool'
import type { DelegateDeps } from './deps'
import type { ToolPayload } from './follow-up'
import type { DelegationDb, DelegationParent } from './types'
import { rawDb as dbOf } from '../store/test-fixtures/raw-db'

export interface TempHome {
  home: string
  dbPath: string
  store: SessionStore
  /** Close every handle and open the file again (a restart). */
  reopen(): SessionStore
  writeConfig(yaml: string): void
  cleanup(): void
}

export function rawDb(path: string): SessionStore {
  return new SessionStore(path, { profile: 'default' })
}

export function tempHome(prefix = 'cad-deleg-'): TempHome {
  const home = mkdtempSync(join(tmpdir(), prefix))
  const dbPath = join(home, 'state.db')
  const opened: SessionStore[] = []
  const open = () => {
    const s = rawDb(dbPath)
    opened.push(s)
    return s
  }
  const t: TempHome = {
    home,
    dbPath,
    store: open(),
    reopen: () => {
      for (const s of opened.splice(0)) s.close()
      t.store = open()
      return t.store
    },
    writeConfig: (yaml) => writeFileSync(join(home, 'config.yaml'), yaml),
    cleanup: () => {
      for (const s of opened) s.close()
      rmSync(home, { recursive: true, force: true })
    }
  }
  return t
}

/** Upstream test helper `_insert_delegation`: a bare running row. */
export async function insertDelegation(
  store: DelegationDb,
  id: string,
  opts: { parentSessionId?: string; state?: string } = {}
): Promise<void> {
  const now = Date.now() / 1000
  await store.write(() =>
    dbOf(store)
      .prepare(
        `INSERT OR REPLACE INTO async_delegations (delegation_id, origin_session, origin_ui_session_id, parent_session_id, state,
           dispatched_at, updated_at, delivery_state, delivery_attempts, origin_session_id) VALUES (?, '', '', ?, ?, ?, ?, 'pending', 0, '')`
      )
      .run(id, opts.parentSessionId ?? 'parent-1', opts.state ?? 'running', now, now)
  )
}

/** `delegate_task` as the model calls it: the tool's own execute, its JSON answer parsed back. */
export async function delegateTask(
  args: Record<string, unknown>,
  parent: DelegationParent | null,
  deps: DelegateDeps
): Promise<ToolPayload> {
  const tool = createDelegateTool(deps, { parent: () => parent })
  const ctx = { profile: deps.profile, sessionId: parent?.sessionId ?? '', turnId: 't', gatewaySessionKey: '' }
  return JSON.parse(await tool.execute(args, ctx)) as ToolPayload
}

// The user-visible texts the tests expect, pinned here (a test that read them from the code could not catch a
// wording change).
export const FOLLOW_UP_NEEDS_GOAL = "follow_up requires 'goal' (the message to deliver to the child)."
export const FOLLOW_UP_NOTE =
  "Follow-up ran as the retained child's next user turn on its own persisted session (budget-exempt: no spawn depth or concurrency consumed)."
export const FOLLOW_UP_RECEIPT =
  "Message queued for the running subagent; it folds in at the child's next iteration boundary (the current tool call is never cut)."
export const FOLLOW_UP_LINEAGE_ERROR =
  'follow_up rejected: only the session lineage that spawned this subagent may message it (compression-rotation continuations included; branches, siblings, and foreign sessions are not owners).'
export const FOLLOW_UP_SELF_ERROR = 'follow_up rejected: a subagent cannot follow up on itself.'
export const followUpNotFound = (id: string) =>
  `follow_up target '${id}' is not a running subagent or a retained completed child. It may have been tombstoned (removed from follow-up messaging), pruned by delegation.retained_ttl_hours, or never retained. Its transcript, if any, is still in state.db.`
export const followUpProfileError = (owner: string, caller: string) =>
  `follow_up rejected: retained subagent belongs to profile '${owner}', not '${caller}'.`

/** The `display_kind` of the message a background completion re-enters the parent chat as. */
export const COMPLETION_DISPLAY_KIND = 'async_delegation_complete'

export { usageReport } from '../store/test-fixtures/usage'

/** A top-level parent agent on turn-1 with no cost yet; `over` sets the session, turn, depth or memory. */
export const delegationParent = (over: Partial<DelegationParent> = {}): DelegationParent => ({
  sessionId: 'parent',
  currentTurnId: 'turn-1',
  depth: 0,
  sessionEstimatedCostUsd: 0,
  sessionCostSource: 'none',
  sessionCostStatus: 'unknown',
  ...over
})
