/**
 * Tests only: the raw better-sqlite3 connection of a SessionStore, to arrange or inspect rows no API writes. What
 * the file itself holds (journal mode, reconciled columns) is read by opening its path with better-sqlite3.
 */
export { sqliteOf as rawDb } from '../session-store'
