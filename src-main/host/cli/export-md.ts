/**
 * `caduceus sessions export --format md|qmd [DIR]`, as upstream's: one file per session (export-md-files.ts) in
 * DIR (default: the profile's `session-exports`), each listed in DIR/manifest.jsonl; `--session-id` exports one
 * (`--lineage logical`: its compression chain as one file) and `--delete-after-verified --yes` then deletes that
 * session once the written file checks out; otherwise a filter is required, and existing files are kept unless
 * `--force`. Refusals exit non-zero here (upstream prints the same words and exits 0).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { CaduceusError } from '@shared/contract'
import type { Host } from '../compose'
import { redactRecord } from '../services'
import * as mdFiles from './export-md-files'
import { call } from './call'
import type { ExportChoice } from './export-trace-cli'

type Rec = Record<string, unknown>
export interface MdExport extends ExportChoice {
  fmt: 'md' | 'qmd'
  force: boolean
  deleteAfterVerified: boolean
  yes: boolean
}

const refuse = (why: string) => new CaduceusError('refused', why)

export async function exportMd(host: Host, o: MdExport): Promise<number> {
  const store = host.stores.get(o.profile)
  if (o.output === '-')
    throw refuse('Markdown/QMD export writes files; stdout (-) is only supported with --format jsonl.')
  const dir = o.output ? o.output.replace(/^~(?=$|\/)/, homedir()) : join(dirname(store.path), 'session-exports')
  if (o.deleteAfterVerified && !o.yes) throw refuse('--delete-after-verified requires --yes.')
  if (o.deleteAfterVerified && !o.sessionId)
    throw refuse('--delete-after-verified is only supported with --session-id.')

  /** Writes one session's file and its manifest line; null when the file is there and --force was not given. */
  const exportOne = (id: string): { rec: Rec; path: string } | null => {
    let [rec] = [...store.exportSessions({ sessionId: id, lineage: o.lineage })] as Rec[]
    if (!rec) return null
    if (o.redact) rec = redactRecord(rec, host.vault.mask)
    mkdirSync(dir, { recursive: true })
    const path = join(dir, mdFiles.filename(rec, o.fmt))
    if (existsSync(path) && !o.force) throw new FileExists(path)
    writeFileSync(path, mdFiles.render(rec, o.fmt), 'utf8')
    appendFileSync(join(dir, 'manifest.jsonl'), mdFiles.manifestLine(rec, path, o.fmt, readFileSync(path)), 'utf8')
    return { rec, path }
  }

  if (o.sessionId) {
    let done: { rec: Rec; path: string } | null
    try {
      done = exportOne(o.sessionId)
    } catch (e) {
      if (e instanceof FileExists) throw refuse(`Export already exists: ${e.path}. Pass --force to overwrite.`)
      throw e
    }
    if (!done) throw new CaduceusError('not_found', `Session '${o.sessionId}' not found.`, 'sessionId')
    const n = mdFiles.messageCount(done.rec)
    console.log(`Exported 1 session (${n} message${n === 1 ? '' : 's'}) to ${done.path}`)
    if (o.deleteAfterVerified) {
      const [ok, reason] = mdFiles.verify(readFileSync(done.path, 'utf8'), done.rec)
      if (!ok) throw refuse(`Export verification failed; not deleting: ${reason}`)
      const r = await call(host, 'sessions.delete', { profile: o.profile, sessionId: o.sessionId })
      console.log(
        r.deleted
          ? `Deleted exported session '${o.sessionId}'.`
          : `Exported, but session '${o.sessionId}' was not deleted because it was not found.`
      )
    }
    return 0
  }
  if (!o.ids)
    throw refuse(
      'Refusing bulk export without a filter. Pass --session-id or at least one filter (e.g. --older-than 90, --source telegram).'
    )
  let exported = 0
  for (const id of o.ids) {
    try {
      if (exportOne(id)) exported++
    } catch (e) {
      if (!(e instanceof FileExists)) throw e
      console.log(`Skipping existing export: ${e.path}. Pass --force to overwrite.`)
    }
  }
  console.log(`Exported ${exported} session(s) to ${dir}`)
  return 0
}

class FileExists extends Error {
  constructor(readonly path: string) {
    super(path)
  }
}
