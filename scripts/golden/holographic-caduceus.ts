// Replays ops.json through Caduceus's holographic provider into a fresh memory_store.db, for
// scripts/golden/holographic.py to run upstream over. Usage: npx tsx holographic-caduceus.ts OPS DB
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { HolographicProvider } from '../../src-main/memory/providers/holographic/provider'

const [opsPath, dbPath] = process.argv.slice(2)
if (!opsPath || !dbPath) throw new Error('usage: holographic-caduceus.ts OPS_JSON DB_PATH')
const { ops } = JSON.parse(readFileSync(opsPath, 'utf8')) as {
  ops: Array<{ tool: string; args: Record<string, unknown> }>
}
const p = new HolographicProvider({ config: { plugins: { 'hermes-memory-store': { db_path: dbPath } } } })
p.initialize('golden', { hermesHome: dirname(dbPath), platform: 'cli' })
for (const op of ops) p.handleToolCall(op.tool, op.args)
p.shutdown()
