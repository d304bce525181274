// A second process that takes the write lock (BEGIN IMMEDIATE), prints "locked", and holds it at least
// <ms> and until its stdin closes (so a test proves reads ran while it was held, without timing), then commits.
//   node hold-lock.mjs <state.db> <ms>
import Database from 'better-sqlite3'
const [path, ms = '3000'] = process.argv.slice(2)
const db = new Database(path)
db.exec('BEGIN IMMEDIATE')
db.prepare("UPDATE sessions SET title = title WHERE id = 'none'").run()
process.stdout.write('locked\n')
let waited = false
let closed = false
const release = () => {
  if (!waited || !closed) return
  db.exec('COMMIT')
  db.close()
  process.stdout.write('released\n')
}
setTimeout(() => {
  waited = true
  release()
}, Number(ms))
process.stdin.on('end', () => {
  closed = true
  release()
})
process.stdin.resume()
