// Another program creating state.db in place, caught mid-way: it holds an EXCLUSIVE lock (rollback journal) on
// the new file, prints "locked", and keeps it until its stdin closes; then commits, prints "released" and exits.
//   node creating-lock.mjs <state.db> empty     the file exists with 0 bytes (nothing written yet)
//   node creating-lock.mjs <state.db> partial   one table committed, the rest still being created
import Database from 'better-sqlite3'
const [path, mode = 'empty'] = process.argv.slice(2)
const db = new Database(path)
db.pragma('journal_mode = DELETE')
if (mode === 'partial') db.exec('CREATE TABLE schema_version (version INTEGER NOT NULL)')
db.exec('BEGIN EXCLUSIVE')
if (mode === 'partial') db.exec('CREATE TABLE half_made (x)')
process.stdout.write('locked\n')
process.stdin.on('end', () => {
  db.exec('COMMIT')
  db.close()
  process.stdout.write('released\n')
})
process.stdin.resume()
