/**
 * `caduceus sessions export|import|delete|rename|stats|prune|archive`: export is upstream's CLI export (export-cli.ts);
 * import reads upstream JSONL; delete and rename (an id or unique prefix; delete asked unless --yes), prune and archive
 * (by-filter.ts) go through the same contract requests as the UI; stats prints what `hermes sessions stats` prints.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { CaduceusError, MAX_IMPORT_BYTES } from '@shared/contract'
import type { HostArgs } from './args'
import type { Host } from '../compose'
import { confirm, sessionsByFilter } from './by-filter'
import { exportCli } from './export-cli'
import { call } from './call'
import { profileOf } from './profile'
import { pyFixed1 } from './py-fixed'
import { UsageError } from './run-args'

/** Returns the exit code, or null when `sub` is not an admin subcommand. */
export async function sessionAdminCli(
  host: Host,
  sub: string | undefined,
  arg: string | undefined,
  args: HostArgs
): Promise<number | null> {
  const profile = profileOf(args, 'default')
  if (sub === 'export') return await exportCli(host, profile, arg, args)
  if (sub === 'import') {
    if (!arg) throw new UsageError('sessions import needs a FILE (upstream JSONL)')
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
    if (!arg) throw new UsageError('sessions delete needs a session id')
    // as `hermes sessions delete`: an exact id or a unique prefix, and a y/N question unless --yes
    const yes = args.prune?.yes === true
    if (args.json && !yes) throw new CaduceusError('invalid_input', 'sessions delete --json deletes only with --yes')
    const id = host.stores.get(profile).resolveSessionId(arg)
    if (!id) throw new CaduceusError('not_found', `Session '${arg}' not found.`, 'sessionId')
    if (!yes && !(await confirm(`Delete session '${id}' and all its messages? [y/N] `))) {
      console.log('Cancelled.')
      return 0
    }
    const r = await call(host, 'sessions.delete', { profile, sessionId: id })
    if (!r.deleted) throw new CaduceusError('not_found', `Session '${arg}' not found.`, 'sessionId')
    // upstream's line on stdout; the detached children, which upstream does not report, a note on stderr
    if (args.json) console.log(JSON.stringify(r))
    else {
      console.log(`Deleted session '${id}'.`)
      if (r.detachedChildren)
        console.error(`caduceus: ${r.detachedChildren} child session(s) detached (kept, now top-level)`)
    }
    return 0
  }
  if (sub === 'rename') {
    // `hermes sessions rename ID TITLE...`: the words after the id are the title, joined by single spaces
    const words = args.positionals.slice(3)
    if (!arg || !words.length) throw new UsageError('sessions rename needs a session id and a title')
    const id = host.stores.get(profile).resolveSessionId(arg)
    if (!id) throw new CaduceusError('not_found', `Session '${arg}' not found.`, 'sessionId')
    const title = words.join(' ')
    const row = await call(host, 'sessions.update', { profile, sessionId: id, title })
    console.log(args.json ? JSON.stringify(row) : `Session '${id}' renamed to: ${title}`)
    return 0
  }
  if (sub === 'stats') {
    const store = host.stores.get(profile)
    const stats = store.storeStats()
    const bytes = existsSync(store.path) ? statSync(store.path).size : null
    if (args.json) console.log(JSON.stringify({ ...stats, databaseBytes: bytes }))
    else {
      // upstream's lines: these five sources only, each when it has a session
      console.log(`Total sessions: ${stats.sessions}\nTotal messages: ${stats.messages}`)
      for (const src of ['cli', 'telegram', 'discord', 'whatsapp', 'slack'])
        if (stats.bySource[src]) console.log(`  ${src}: ${stats.bySource[src]} sessions`)
      // upstream's SessionDB creates a missing file before it measures it (0.0 MB); reads here create nothing
      console.log(`Database size: ${pyFixed1((bytes ?? 0) / (1024 * 1024))} MB`)
    }
    return 0
  }
  if (sub === 'prune' || sub === 'archive') return await sessionsByFilter(host, sub, profile, args)
  return null
}
