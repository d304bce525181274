/** Tests only: the raw better-sqlite3 connection (and open state) of a SessionStore, to arrange or inspect rows no API writes. */
export { sqliteOf as rawDb, stateDbOf as rawState } from '../session-store'
