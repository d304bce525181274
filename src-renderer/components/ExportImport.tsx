/**
 * Export (a session, a selection, or the sessions the list shows) as an upstream JSONL download, Markdown or an HTML
 * page, and import an upstream JSONL file with the host's summary. Both go through the `sessions.export` /
 * `sessions.import` requests.
 */
import { useRef, useState } from 'react'
import type { SessionImportResult } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from '../stores/toasts'
import { reloadSessions, useSessionRows } from '../stores/sessions'
import { exportRows, type SetFormat } from '../stores/bulk-actions'
import { useSelectedRows } from '../stores/selection'
import { download } from '../lib/download'
import { useApp } from '../stores/app'
import { actingProfile } from '../app/routes'

async function exportAndDownload(input: {
  profile: string
  sessionId?: string
  format: 'jsonl' | 'markdown' | 'html'
  lineage?: boolean
}): Promise<void> {
  try {
    const out = await getApi().call('sessions.export', input)
    download(out.filename, out.mime, out.content)
  } catch (err) {
    reportError(err, 'Export')
  }
}

/**
 * Session page: export this session (JSONL, Markdown, or HTML: a page to read in any browser); with `lineage` (the page shows a compression chain as one
 * conversation) the whole chain, one record with its segments.
 */
export function ExportSessionButton({
  profile,
  sessionId,
  lineage = false
}: {
  profile: string
  sessionId: string
  lineage?: boolean
}) {
  const whole = lineage ? { lineage: true } : {}
  return (
    <>
      <button
        className="small"
        data-testid="session-export"
        onClick={() => void exportAndDownload({ profile, sessionId, format: 'jsonl', ...whole })}
      >
        Export
      </button>
      <button
        className="small"
        data-testid="session-export-md"
        onClick={() => void exportAndDownload({ profile, sessionId, format: 'markdown', ...whole })}
      >
        Markdown
      </button>
      <button
        className="small"
        data-testid="session-export-html"
        title="A page to read in any browser: tool calls folded, no scripts"
        onClick={() => void exportAndDownload({ profile, sessionId, format: 'html', ...whole })}
      >
        HTML
      </button>
    </>
  )
}

/**
 * Sessions page toolbar export: the selection when there is one, else exactly the rows the filters show (every
 * page of them, not only the loaded ones) — the label says which — as JSONL, Markdown or one HTML page, the formats a
 * single session downloads in.
 */
function ListExportButton() {
  const selected = useSelectedRows()
  const rows = useSessionRows()
  const shown = rows.order.length
  const more = rows.nextCursor != null
  const [busy, setBusy] = useState(false)
  const label = selected.length ? `Export selected (${selected.length})` : `Export shown (${shown}${more ? '+' : ''})`
  const which = selected.length ? 'the selected sessions' : 'every session the current scope and filters show'
  const run = async (format: SetFormat) => {
    setBusy(true)
    await exportRows(selected.length ? selected : undefined, format)
    setBusy(false)
  }
  const disabled = busy || (!selected.length && !shown)
  const menu = useRef<HTMLDetailsElement>(null)
  const runOther = (format: SetFormat) => {
    if (menu.current) menu.current.open = false
    void run(format)
  }
  // JSONL (upstream's format) is the button; the other set formats sit behind a small menu beside it: a button each
  // pushed the toolbar onto a line of its own at 900 px
  return (
    <span className="split-button">
      <button
        className="small"
        data-testid="list-export"
        data-export={selected.length ? 'selected' : 'shown'}
        disabled={disabled}
        title={`Export ${which} as JSONL (upstream's export format)`}
        onClick={() => void run('jsonl')}
      >
        {label}
      </button>
      <details className="export-more" ref={menu}>
        <summary className="btn small" aria-label="Other export formats" title={`Export ${which} as Markdown or HTML`}>
          ▾
        </summary>
        <div className="export-more-menu">
          <button
            className="small"
            data-testid="list-export-md"
            disabled={disabled}
            title={`Export ${which} as one Markdown file`}
            onClick={() => runOther('markdown')}
          >
            Markdown
          </button>
          <button
            className="small"
            data-testid="list-export-html"
            disabled={disabled}
            title={`Export ${which} as one page to read in any browser`}
            onClick={() => runOther('html')}
          >
            HTML page
          </button>
        </div>
      </details>
    </span>
  )
}

/** Sessions page toolbar: export what is shown or selected, import a file into the profile in scope (actingProfile). */
export function ExportImportBar({ scope }: { scope: string }) {
  const profile = useApp((s) => actingProfile(scope, s.profiles)) ?? 'default'
  const input = useRef<HTMLInputElement>(null)
  const [busy, setBusy] = useState(false)
  const [summary, setSummary] = useState<SessionImportResult | null>(null)
  const onFile = async (file: File | undefined) => {
    if (!file) return
    setBusy(true)
    setSummary(null)
    try {
      const result = await getApi().call('sessions.import', { profile, content: await file.text() })
      setSummary(result)
      void reloadSessions()
    } catch (err) {
      reportError(err, 'Import')
    } finally {
      setBusy(false)
      if (input.current) input.current.value = ''
    }
  }
  return (
    <div className="export-import" data-testid="export-import">
      <ListExportButton />
      <button
        className="small"
        data-testid="list-import"
        disabled={busy}
        title={`Import a JSONL export into ${profile}`}
        onClick={() => input.current?.click()}
      >
        {busy ? 'Importing…' : 'Import…'}
      </button>
      <input
        ref={input}
        type="file"
        accept=".jsonl,.json,application/x-ndjson"
        hidden
        data-testid="import-file"
        onChange={(e) => void onFile(e.target.files?.[0])}
      />
      {summary && (
        <span className="muted small" role="status" data-testid="import-summary">
          Imported {summary.imported}, skipped {summary.skipped}, detached {summary.detached}
          {summary.errors.length > 0 &&
            `, ${summary.errors.length} error${summary.errors.length === 1 ? '' : 's'}: ${summary.errors
              .slice(0, 3)
              .map((e) => `${e.id} (${e.reason})`)
              .join('; ')}`}
          <button className="link small" onClick={() => setSummary(null)} aria-label="Dismiss import summary">
            ×
          </button>
        </span>
      )}
    </div>
  )
}
