/** Tests only: the raw better-sqlite3 handle of a SessionStore, to arrange or inspect rows no API writes. */
export { sqliteOf as rawDb } from '../session-store'
