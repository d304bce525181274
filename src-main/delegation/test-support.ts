/**
 * Test helpers (imported by *.test.ts only): a real state.db in a temp home, opened through the store's
 * own `SessionStore`, so the schema and lineage rules under test are the store's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore } from '../store'
import type { DelegationDb } from './types'
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
