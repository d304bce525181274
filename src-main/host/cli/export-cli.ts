/**
 * `caduceus sessions export [OUTPUT] [flags]`, as upstream's `hermes sessions export` behaves (golden:
 * scripts/golden/export_cli.py): OUTPUT `-` is stdout, a path gets the file and a line saying how many went there.
 * `--session-id` takes an exact id or a unique prefix (given several times, those sessions in that order, in any
 * format). With no filter, every session (most recently used first,
 * each with `last_active`); any of prune's filter flags (prune-flags.ts) selects the ENDED sessions matching them,
 * archived ones included, oldest first; `--dry-run` lists that selection and needs a filter. `--only user-prompts`
 * writes one prompt record per line, `--redact` masks credentials in the messages; `--format md|qmd` writes
 * upstream's files (export-md.ts), `--format trace` Claude Code JSONL for a trace viewer (export-trace-cli.ts; its
 * `--upload` to Hugging Face is refused, exit 2: nothing here sends a session off the machine) and `--format html` one
 * page for the whole selection (services' export-html.ts).
 * Where Caduceus goes further: no OUTPUT is stdout (upstream refuses it for JSONL and HTML), `--lineage` applies to
 * JSONL, HTML and trace too (upstream reads it for md/qmd only), and a refusal or a missing session exits non-zero (upstream prints
 * the same words and exits 0, which a script cannot tell from success).
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { CaduceusError, type PruneFilterInput } from '@shared/contract'
import type { HostArgs } from './args'
import type { Host } from '../compose'
import { exportChunks, exportFormat } from '../services'
import { when } from './by-filter'
import { exportMd } from './export-md'
import { exportTrace } from './export-trace-cli'
import { UsageError } from './run-args'
import { pruneFilter } from './prune-flags'

async function write(chunk: string): Promise<void> {
  if (!process.stdout.write(chunk)) await new Promise<void>((r) => process.stdout.once('drain', () => r()))
}

export async function exportCli(host: Host, profile: string, output: string | undefined, args: HostArgs) {
  const a = args.admin ?? {}
  // choices upstream's argparse refuses with its usage exit (2)
  if (a.only !== undefined && a.only !== 'user-prompts')
    throw new UsageError(`unknown --only '${a.only}': use user-prompts`)
  if (a.format !== undefined && !['jsonl', 'markdown', 'md', 'qmd', 'html', 'trace'].includes(a.format))
    throw new UsageError(`unknown export format '${a.format}': use jsonl, markdown, md, qmd, html or trace`)
  const trace = a.format === 'trace'
  if (a.upload)
    throw new UsageError(
      trace
        ? '--upload is not available: Caduceus sends no session to Hugging Face; write the trace to a file (--format trace OUTPUT) and upload that yourself.'
        : '--upload and --public go with --format trace, and Caduceus does not upload.'
    )
  if (a.only !== undefined && (trace || a.format === 'html'))
    throw new CaduceusError('refused', '--only user-prompts supports --format jsonl or md.')
  // md/qmd: upstream's files in a directory (export-md.ts); with --only, the prompts as one Markdown text
  const md = (a.format === 'md' || a.format === 'qmd') && a.only === undefined ? a.format : null
  const format = md || trace ? 'markdown' : exportFormat(a.format)
  if (md && output === '-')
    throw new CaduceusError(
      'refused',
      'Markdown/QMD export writes files; stdout (-) is only supported with --format jsonl.'
    )
  const flags = args.prune ?? {}
  for (const k of ['archived', 'no-archived', 'include-archived'])
    if (flags[k])
      throw new CaduceusError('invalid_input', `--${k} is not an export flag: an export covers archived sessions too`)
  // pruneFilter's cutoff is null exactly when a filter flag was given (upstream's "any filter" test)
  const { dryRun, olderThanDays, ...rest } = pruneFilter(flags, args.model)
  const filter = withoutArchived(rest)
  const store = host.stores.get(profile)
  let sessionId: string | undefined
  let ids: string[] | undefined
  const asked = (a.sessions ?? []).map((given) => {
    const id = store.resolveSessionId(given)
    if (!id) throw new CaduceusError('not_found', `Session '${given}' not found.`, 'sessionId')
    return id
  })
  // upstream's order: an id wins over filters, and a dry run still exports it; several ids are a selection, in the
  // order given, each once (upstream takes one --session-id)
  const distinct = [...new Set(asked)]
  if (distinct.length === 1) sessionId = distinct[0]
  else if (distinct.length > 1) ids = distinct
  else if (olderThanDays === null) {
    const rows = store.exportCandidates(filter)
    if (dryRun) {
      console.log(`Would export ${rows.length} session(s) (${describe(filter)}).`)
      for (const r of rows.slice(0, 100)) console.log(`  ${r.id}  ${r.source ?? ''}`)
      if (rows.length > 100) console.log(`  ... ${rows.length - 100} more`)
      return 0
    }
    ids = rows.map((r) => r.id)
  } else if (dryRun && !md) throw new CaduceusError('invalid_input', '--dry-run requires at least one filter.')
  if (trace)
    return await exportTrace(
      host,
      { profile, output, sessionId, ids: ids ?? null, lineage: a.lineage === true, redact: a.noRedact !== true },
      write
    )
  if (md)
    return await exportMd(host, {
      fmt: md,
      profile,
      output,
      sessionId,
      ids: ids ?? null,
      lineage: a.lineage === true,
      redact: a.redact === true,
      force: a.force === true,
      deleteAfterVerified: a.deleteAfterVerified === true,
      yes: flags.yes === true
    })

  const tally = { sessions: 0, prompts: 0 }
  const chunks = exportChunks(store, {
    format,
    onlyUserPrompts: a.only === 'user-prompts',
    lineage: a.lineage,
    sessionId,
    ids,
    redact: a.redact ? host.vault.mask : null,
    tally
  })
  if (output === undefined || output === '-') {
    for (const chunk of chunks) await write(chunk)
    return 0
  }
  const fd = openSync(output, 'w')
  try {
    for (const chunk of chunks) writeSync(fd, chunk)
  } finally {
    closeSync(fd)
  }
  // upstream's words: a prompt count for --only, "1 session" for --session-id, "N sessions" for the rest
  const n = a.only === 'user-prompts' ? tally.prompts : tally.sessions
  if (a.only === 'user-prompts') console.log(`Exported ${n} prompt${n === 1 ? '' : 's'} to ${output}`)
  else if (format === 'html') console.log(`Exported ${n} session${n === 1 ? '' : 's'} to ${output} (HTML)`)
  else console.log(`Exported ${n} session${sessionId ? '' : 's'} to ${output}`)
  return 0
}

function withoutArchived(f: PruneFilterInput & { yes?: boolean }) {
  const { archived: _a, includeArchived: _i, yes: _y, ...filter } = f // eslint-disable-line @typescript-eslint/no-unused-vars
  return filter
}

const cost = (v: number) => (Number.isInteger(v) ? v.toFixed(1) : String(v))
/** What a dry run says it selects, in upstream's words (its describe_filters). */
function describe(f: ReturnType<typeof withoutArchived>): string {
  const parts: string[] = []
  const add = (cond: unknown, text: () => string) => {
    if (cond !== undefined && cond !== null && cond !== '') parts.push(text())
  }
  add(f.startedBefore, () => `started before ${when(f.startedBefore!)}`)
  add(f.startedAfter, () => `started after ${when(f.startedAfter!)}`)
  add(f.source, () => `source '${f.source}'`)
  add(f.titleLike, () => `title contains '${f.titleLike}'`)
  add(f.endReason, () => `end reason '${f.endReason}'`)
  add(f.cwdPrefix, () => `cwd under '${f.cwdPrefix}'`)
  add(f.minMessages, () => `>= ${f.minMessages} messages`)
  add(f.maxMessages, () => `<= ${f.maxMessages} messages`)
  add(f.modelLike, () => `model contains '${f.modelLike}'`)
  add(f.provider, () => `provider '${f.provider}'`)
  add(f.userId, () => `user '${f.userId}'`)
  add(f.chatId, () => `chat '${f.chatId}'`)
  add(f.chatType, () => `chat type '${f.chatType}'`)
  add(f.branchLike, () => `git branch contains '${f.branchLike}'`)
  add(f.minTokens, () => `>= ${f.minTokens} tokens`)
  add(f.maxTokens, () => `<= ${f.maxTokens} tokens`)
  add(f.minCost, () => `>= $${cost(f.minCost!)}`)
  add(f.maxCost, () => `<= $${cost(f.maxCost!)}`)
  add(f.minToolCalls, () => `>= ${f.minToolCalls} tool calls`)
  add(f.maxToolCalls, () => `<= ${f.maxToolCalls} tool calls`)
  return parts.length ? parts.join(', ') : 'no filters (all ended sessions)'
}
