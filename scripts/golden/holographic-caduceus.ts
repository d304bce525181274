// Replays ops.json through Caduceus's holographic provider, for scripts/golden/holographic.py to run upstream over.
//   npx tsx holographic-caduceus.ts OPS DB            the main ops into a fresh memory_store.db at DB
//   npx tsx holographic-caduceus.ts --setup OPS HOME  the setup ops and session-end messages in HOME, configured
//                                                     from HOME/config.yaml as the host reads it
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { loadConfig } from '../../src-main/config'
import type { ChatMessage } from '../../src-main/memory/provider'
import { HolographicProvider } from '../../src-main/memory/providers/holographic/provider'

type Call = { tool: string; args: Record<string, unknown> }
const args = process.argv.slice(2)
const setup = args[0] === '--setup'
const [opsPath, target] = setup ? args.slice(1) : args
if (!opsPath || !target) throw new Error('usage: holographic-caduceus.ts [--setup] OPS_JSON (DB_PATH | HOME)')
const plan = JSON.parse(readFileSync(opsPath, 'utf8')) as {
  ops: Call[]
  setup: { ops: Call[]; messages: ChatMessage[] }
}
if (setup) {
  const p = new HolographicProvider({ config: loadConfig(target).raw, home: target })
  p.initialize('golden-setup', { hermesHome: target, platform: 'cli' })
  for (const op of plan.setup.ops) p.handleToolCall(op.tool, op.args)
  p.onSessionEnd(plan.setup.messages)
  p.shutdown()
} else {
  const p = new HolographicProvider({ config: { plugins: { 'hermes-memory-store': { db_path: target } } } })
  p.initialize('golden', { hermesHome: dirname(target), platform: 'cli' })
  for (const op of plan.ops) p.handleToolCall(op.tool, op.args)
  p.shutdown()
}
