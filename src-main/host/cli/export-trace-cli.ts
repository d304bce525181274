/**
 * `caduceus sessions export --format trace [OUTPUT]`: Claude Code JSONL for the Hugging Face Agent Trace Viewer
 * (services' traceJsonl), chosen as upstream's `hermes sessions export --format trace` chooses (golden:
 * scripts/golden/export_trace.py): `--session-id`, else the filter's ended sessions, else the most recently used
 * session. One session goes to OUTPUT (a file; none or `-` stdout); a filter matching any other number writes
 * `<id>.trace.jsonl` per session into OUTPUT as a folder (default: the profile's `session-exports`). Secrets are masked
 * unless `--no-redact`. A session with no message is skipped, or refused when it is the only one.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { CaduceusError } from '@shared/contract'
import type { Host } from '../compose'
import { redactRecord, traceJsonl } from '../services'

/** What every per-session export format is asked: which profile, where to, which sessions, and how. */
export interface ExportChoice {
  profile: string
  output: string | undefined
  sessionId: string | undefined
  /** The filter's selection, or null when no filter was given. */
  ids: string[] | null
  lineage: boolean
  redact: boolean
}

export async function exportTrace(host: Host, o: ExportChoice, write: (s: string) => Promise<void>): Promise<number> {
  const store = host.stores.get(o.profile)
  const render = (id: string): string => {
    const [rec] = [...store.exportSessions({ sessionId: id, lineage: o.lineage })]
    return rec ? traceJsonl(o.redact ? redactRecord(rec, host.vault.mask) : rec) : ''
  }
  let single = o.sessionId ?? (o.ids?.length === 1 ? o.ids[0] : undefined)
  if (!single && !o.ids) {
    // no selection at all: the session used last, as upstream's "the last thing I did"
    for (const rec of store.exportSessions({ lineage: false })) {
      single = rec.id
      break
    }
    if (!single) throw new CaduceusError('not_found', 'No session found to export. Pass --session-id.', 'sessionId')
  }
  if (single) {
    const text = render(single)
    if (!text) throw new CaduceusError('not_found', `No transcript to export for session '${single}'.`, 'sessionId')
    if (o.output === undefined || o.output === '-') await write(text)
    else {
      writeFileSync(o.output, text, 'utf8')
      console.log(`Exported 1 session trace to ${o.output}`)
    }
    return 0
  }
  const dir =
    o.output && o.output !== '-'
      ? o.output.replace(/^~(?=$|\/)/, homedir())
      : join(dirname(store.path), 'session-exports')
  mkdirSync(dir, { recursive: true })
  let exported = 0
  for (const id of o.ids ?? []) {
    const text = render(id)
    if (!text) continue
    // an id is a file name here: no separator may take it out of the folder
    writeFileSync(join(dir, `${id.replace(/[/\\\0]/g, '_')}.trace.jsonl`), text, 'utf8')
    exported++
  }
  console.log(`Exported ${exported} session trace(s) to ${dir}`)
  return 0
}
