import { useState } from 'react'
import { getApi } from '../../api'
import { download } from '../../lib/download'
import { reportError } from '../../stores/toasts'
import { periodInput, periodSlug } from '../../stores/costs'
import { costReportCsv } from './cost-export'
import type { CostsView } from './costs-query'

/**
 * "Export report": the period's per-day, per-session and per-model rows as one CSV. Asks the host for every
 * session (the page itself shows the top 10), with the page's scope, period and day filter.
 */
export function ExportReportButton({ scope, view }: { scope: string; view: CostsView }) {
  const { day } = view
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    try {
      const summary = await getApi().call('costs.summary', {
        profile: scope,
        ...periodInput(view),
        ...(day ? { day } : {}),
        allSessions: true
      })
      download(`caduceus-cost-report-${scope}-${day ?? periodSlug(view)}.csv`, 'text/csv', costReportCsv(summary))
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
