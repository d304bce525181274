/**
 * `caduceus sessions export|import|delete|prune|archive`: export streams to stdout (one record at a time,
 * honouring backpressure); import reads upstream JSONL; delete, prune and archive (by-filter.ts) go through the same
 * contract requests as the UI.
 */
import { readFileSync, statSync } from 'node:fs'
import { CaduceusError, MAX_IMPORT_BYTES } from '@shared/contract'
import type { HostArgs } from './args'
import type { Host } from '../compose'
import { exportChunks, exportFormat } from '../services'
import { sessionsByFilter } from './by-filter'
import { call } from './call'

async function write(chunk: string): Promise<void> {
  if (!process.stdout.write(chunk)) await new Promise<void>((r) => process.stdout.once('drain', () => r()))
}

/** Returns the exit code, or null when `sub` is not an admin subcommand. */
export async function sessionAdminCli(
  host: Host,
  sub: string | undefined,
  arg: string | undefined,
  args: HostArgs
): Promise<number | null> {
  const profile = args.profile ?? 'default'
  const a = args.admin ?? {}
  if (sub === 'export') {
    if (a.only !== undefined && a.only !== 'user-prompts')
      throw new Error(`unknown --only '${a.only}': use user-prompts`)
    const format = exportFormat(a.format)
    const store = host.stores.get(profile)
    for (const chunk of exportChunks(store, {
      format,
      onlyUserPrompts: a.only === 'user-prompts',
      lineage: a.lineage,
      sessionId: a.session
    }))
      await write(chunk)
    return 0
  }
  if (sub === 'import') {
    if (!arg) throw new Error('sessions import needs a FILE (upstream JSONL)')
    if (statSync(arg).size > MAX_IMPORT_BYTES)
      throw new CaduceusError('invalid_input', `import is larger than ${MAX_IMPORT_BYTES} bytes`)
    const summary = await call(host, 'sessions.import', { profile, content: readFileSync(arg, 'utf8') })
    if (args.json) console.log(JSON.stringify(summary))
    else {
      console.log(
        `imported ${summary.imported}, skipped ${summary.skipped} (already present), detached ${summary.detached} (orphans), rejected ${summary.errors.length}`
      )
      for (const e of summary.errors) console.log(`  ${e.line ? `line ${e.line}` : e.id}: ${e.reason}`)
      const ignored = Object.entries(summary.ignoredFields ?? {})
      if (ignored.length) console.log(`ignored fields: ${ignored.map(([k, n]) => `${k} (${n})`).join(', ')}`)
    }
    return 0
  }
  if (sub === 'delete') {
    if (!arg) throw new Error('sessions delete needs a session id')
    const r = await call(host, 'sessions.delete', { profile, sessionId: arg })
    if (!r.deleted) throw new Error(`not_found: no session '${arg}' in profile '${profile}'`)
    console.log(
      args.json
        ? JSON.stringify(r)
        : `deleted ${arg}${r.detachedChildren ? ` (${r.detachedChildren} child session(s) detached)` : ''}`
    )
    return 0
  }
  if (sub === 'prune' || sub === 'archive') return await sessionsByFilter(host, sub, profile, args)
  return null
}
