/**
 * A second process writing a state.db, for the watcher test and the bench.
 *   node --import tsx writer.ts <db> <session> append [n]   one transaction appending n messages (default 1)
 *   node --import tsx writer.ts <db> <session> noop         a committed write no list shows: `title = title` plus a
 *                                                           change to an invisible column (SQLite skips the WAL
 *                                                           write for a pure same-value UPDATE, so data_version
 *                                                           would not even move without the second statement)
 *   node --import tsx writer.ts <db> <session> serve        per stdin line "append": append one message, then
 *                                                           print {"t": <epoch ms after COMMIT>}; per line
 *                                                           "delete-oldest": delete the home's oldest message (deep
 *                                                           in the list, never the newest rows), then the same
 */
import { createInterface } from 'node:readline'
import { SessionStore } from '../session-store'
import { txDb } from '../write-tx'

const [dbPath, sessionId, cmd = 'append', nArg = '1'] = process.argv.slice(2)
if (!dbPath || !sessionId) {
  process.stderr.write('usage: writer.ts <db> <session> append|noop|serve [n]\n')
  process.exit(2)
}
const store = new SessionStore(dbPath)
const wallMs = () => performance.timeOrigin + performance.now()

if (cmd === 'append') {
  const n = Math.max(1, Number(nArg) || 1)
  await store.ensureSession(sessionId, 'cli')
  await store.appendMessages(
    sessionId,
    Array.from({ length: n }, (_, i) => ({ role: 'user', content: `from writer ${process.pid} #${i}` }))
  )
  store.close()
  process.stdout.write('done\n')
} else if (cmd === 'noop') {
  await store.write((tx) => {
    const db = txDb(tx)
    db.prepare('UPDATE sessions SET title = title').run()
    db.prepare('UPDATE sessions SET last_activity_description = ? WHERE id = ?').run(`probe ${process.pid}`, sessionId)
  })
  store.close()
  process.stdout.write('done\n')
} else if (cmd === 'serve') {
  await store.ensureSession(sessionId, 'cli')
  process.stdout.write('ready\n')
  const rl = createInterface({ input: process.stdin })
  rl.on('line', async (line) => {
    const what = line.trim()
    if (what === 'append')
      await store.appendMessage(sessionId, { role: 'user', content: `bench message ${Date.now()}` })
    else if (what === 'delete-oldest')
      await store.write((tx) => {
        txDb(tx).prepare('DELETE FROM messages WHERE id = (SELECT MIN(id) FROM messages)').run()
      })
    else return
    process.stdout.write(JSON.stringify({ t: wallMs() }) + '\n')
  })
  rl.on('close', () => {
    store.close()
    process.exit(0)
  })
} else {
  process.stderr.write(`unknown command ${cmd}\n`)
  process.exit(2)
}
