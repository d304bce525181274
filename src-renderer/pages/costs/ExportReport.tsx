import { useState } from 'react'
import { getApi } from '../../api'
import { download } from '../../lib/download'
import { reportError } from '../../stores/toasts'
import { costReportCsv } from './cost-export'

/**
 * "Export report": the period's per-day, per-session and per-model rows as one CSV. Asks the host for every
 * session (the page itself shows the top 10), with the page's scope, period and day filter.
 */
export function ExportReportButton({ scope, days, day }: { scope: string; days: number; day?: string }) {
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    try {
      const summary = await getApi().call('costs.summary', {
        profile: scope,
        days,
        ...(day ? { day } : {}),
        allSessions: true
      })
      download(`caduceus-cost-report-${scope}-${day ?? `${days}d`}.csv`, 'text/csv', costReportCsv(summary))
    } catch (err) {
      reportError(err, 'Exporting the cost report')
    } finally {
      setBusy(false)
    }
  }
  return (
    <button
      className="small"
      data-testid="costs-export-report"
      disabled={busy}
      title="One CSV with a row per day, per session and per model (integer micro-dollars)"
      onClick={() => void run()}
    >
      {busy ? 'Exporting…' : 'Export report'}
    </button>
  )
}
