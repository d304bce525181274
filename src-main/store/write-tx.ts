/**
 * The write transaction as a type. `SessionStore.write(fn)` mints one `WriteTx` per transaction and hands it
 * to `fn`; every repository write function takes it as its first argument, so a write outside `store.write()`
 * does not compile. The class has private (`#`) fields, which TypeScript checks nominally: no object literal
 * or other class can stand in for it. It is closed when its transaction ends (COMMIT or ROLLBACK), so one
 * kept past its callback fails instead of writing outside the lock. The store's face exports the type only.
 */
import type Database from 'better-sqlite3'
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import type * as schema from './schema'

export type Orm = BetterSQLite3Database<typeof schema>

export class WriteTx {
  readonly #db: () => Database.Database
  readonly #orm: () => Orm
  readonly #touch: (ids: string[]) => void
  #open = true

  /** store/-internal: only `SessionStore.write()` constructs one. */
  constructor(db: () => Database.Database, orm: () => Orm, touch: (ids: string[]) => void) {
    this.#db = db
    this.#orm = orm
    this.#touch = touch
  }

  /** Report session ids this write changed; listeners hear them once, after COMMIT. */
  touch(...sessionIds: string[]): void {
    this.#check()
    this.#touch(sessionIds)
  }

  /** The transaction ended: any later use throws. */
  close(): void {
    this.#open = false
  }

  #check(): void {
    if (!this.#open) throw new Error('write transaction already ended: use the handle only inside store.write()')
  }

  /** store/-internal: the connection this transaction runs on (read per call: the first write swaps it). */
  static db(tx: WriteTx): Database.Database {
    tx.#check()
    return tx.#db()
  }

  /** store/-internal: typed drizzle queries on the same connection. */
  static orm(tx: WriteTx): Orm {
    tx.#check()
    return tx.#orm()
  }
}

/** The connection of a running write (store/-internal). */
export const txDb = (tx: WriteTx): Database.Database => WriteTx.db(tx)
/** Drizzle on the connection of a running write (store/-internal). */
export const txOrm = (tx: WriteTx): Orm => WriteTx.orm(tx)
