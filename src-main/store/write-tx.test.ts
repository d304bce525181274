/**
 * Writes are typed to the write transaction: a repository write takes the `WriteTx` only `store.write()` hands
 * out (the `@ts-expect-error` lines fail the typecheck if that ever stops being true), and the handle dies with
 * its transaction. Reads return camelCase records.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { makeHome } from './test-fixtures/homes'

afterAll(cleanupTempDirs)

const dispatch = {
  delegationId: 'd1',
  originSession: 'key',
  originUiSessionId: 'ui',
  parentSessionId: 'p',
  dispatchedAt: 10,
  now: 10,
  ownerPid: 1,
  ownerStartedAt: null,
  taskJson: null,
  originSessionId: 'o'
}

it('a repository write needs the handle of a running store.write(); a kept handle throws after COMMIT', async () => {
  const path = join(tempDir(), 'state.db')
  const store = new SessionStore(path, { profile: 'default' })
  const repo = store.delegationRepo()

  // @ts-expect-error a write function takes the WriteTx first
  expect(() => repo.insertDispatch(dispatch)).toThrow()
  // @ts-expect-error a look-alike object is not a WriteTx (the class has #private fields)
  expect(() => repo.insertDispatch({ touch() {} }, dispatch)).toThrow()
  expect(repo.exists('d1')).toBe(false)

  let kept: Parameters<typeof repo.insertDispatch>[0] | undefined
  await store.write((tx) => {
    kept = tx
    repo.insertDispatch(tx, dispatch)
  })
  expect(repo.getDurable('d1')).toEqual({
    delegationId: 'd1',
    originSession: 'key',
    state: 'running',
    dispatchedAt: 10,
    completedAt: null,
    resultJson: null,
    deliveryState: 'pending',
    deliveryAttempts: 0,
    originSessionId: 'o'
  })
  expect(() => repo.markDropped(kept!, 'd1', 20)).toThrow(/write transaction already ended/)
  expect(repo.getDurable('d1')?.deliveryState).toBe('pending')

  store.close()
})

it('an older home: a ledger whose origin_session_id upstream ALTER-added as nullable reads as the same record', () => {
  const path = makeHome(tempDir(), 21)
  const db = new Database(path)
  db.exec(`CREATE TABLE async_delegations (delegation_id TEXT PRIMARY KEY, origin_session TEXT NOT NULL,
    state TEXT NOT NULL, dispatched_at REAL NOT NULL, updated_at REAL NOT NULL)`)
  db.exec('ALTER TABLE async_delegations ADD COLUMN origin_session_id TEXT')
  db.prepare("INSERT INTO async_delegations VALUES ('d2', 'key', 'completed', 5, 6, NULL)").run()
  db.close()
  const store = new SessionStore(path, { profile: 'default' })
  // Columns this home lacks come from the read shim's defaults; the NULL is normalised in the query.
  expect(store.delegationRepo().getDurable('d2')).toEqual({
    delegationId: 'd2',
    originSession: 'key',
    state: 'completed',
    dispatchedAt: 5,
    completedAt: null,
    resultJson: null,
    deliveryState: 'pending',
    deliveryAttempts: 0,
    originSessionId: ''
  })
  store.close()
})
