/**
 * Run as a SEPARATE process (`npx tsx append-message.ts <db> <sessionId> <text>`): appends one message
 * to a session the way another Caduceus or an upstream Hermes would, for the cross-process guard tests.
 */
import { SessionStore } from '../../store'

const [dbPath, sessionId, text] = process.argv.slice(2)
if (!dbPath || !sessionId) {
  process.stderr.write('usage: append-message <state.db> <sessionId> [text]\n')
  process.exit(2)
}
const store = new SessionStore(dbPath)
try {
  const id = await store.appendMessage(sessionId, { role: 'user', content: text ?? 'written by another process' })
  process.stdout.write(JSON.stringify({ pid: process.pid, messageId: id }) + '\n')
} finally {
  store.close()
}
