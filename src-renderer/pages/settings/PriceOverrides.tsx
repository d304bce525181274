import { useEffect, useState } from 'react'
import type { PriceOverride } from '@shared/contract'
import { getApi } from '../../api'
import { reportError } from '../../stores/toasts'

type Row = { model: string; baseUrl: string; inputPerMTok: string; outputPerMTok: string; cacheReadPerMTok: string }

/** A row's three prices, each a cell of its own. */
const PRICES: ReadonlyArray<{
  key: 'inputPerMTok' | 'outputPerMTok' | 'cacheReadPerMTok'
  label: string
  testId?: string
}> = [
  { key: 'inputPerMTok', label: 'Input price per million tokens', testId: 'price-input' },
  { key: 'outputPerMTok', label: 'Output price per million tokens', testId: 'price-output' },
  { key: 'cacheReadPerMTok', label: 'Cache read price per million tokens' }
]
const toRow = (o: PriceOverride): Row => ({
  model: o.model,
  baseUrl: o.baseUrl,
  inputPerMTok: String(o.inputPerMTok),
  outputPerMTok: String(o.outputPerMTok),
  cacheReadPerMTok: String(o.cacheReadPerMTok)
})
const blank = (): Row => ({ model: '', baseUrl: '', inputPerMTok: '', outputPerMTok: '', cacheReadPerMTok: '0' })

/**
 * Prices for models upstream cannot price (a custom OpenAI-compatible endpoint, a local model). Kept in
 * Caduceus settings, applied when costs are read, shown as "custom price"; upstream's cost columns are untouched.
 */
export function PriceOverrides() {
  const [rows, setRows] = useState<Row[] | null>(null)
  const [saving, setSaving] = useState(false)
  const [saved, setSaved] = useState(false)
  useEffect(() => {
    getApi()
      .call('prices.get', {})
      .then((r) => setRows(r.overrides.map(toRow)))
      .catch((err) => {
        reportError(err, 'Loading prices')
        setRows([])
      })
  }, [])
  if (!rows) return <section className="panel muted pad-s">Loading prices…</section>
  const set = (i: number, patch: Partial<Row>) => {
    setSaved(false)
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)))
  }
  const save = async () => {
    setSaving(true)
    try {
      const overrides = rows
        .filter((r) => r.model.trim())
        .map((r) => ({
          model: r.model.trim(),
          baseUrl: r.baseUrl.trim(),
          inputPerMTok: Number(r.inputPerMTok),
          outputPerMTok: Number(r.outputPerMTok),
          cacheReadPerMTok: Number(r.cacheReadPerMTok || 0)
        }))
      const res = await getApi().call('prices.set', { overrides })
      setRows(res.overrides.map(toRow))
      setSaved(true)
      // what was priced with the old ones is read again when the host's prices.changed arrives (stores/prices.ts)
    } catch (err) {
      reportError(err, 'Saving prices')
    } finally {
      setSaving(false)
    }
  }
  return (
    <section className="panel prices" data-testid="price-overrides" aria-labelledby="prices-h">
      <h2 className="section-title" id="prices-h">
        Prices (custom price)
      </h2>
      <p className="muted small">
        For usage upstream recorded as <em>unpriced</em>: USD per million tokens. Costs show these amounts labelled
        “custom price”; upstream’s own cost columns are never changed. Cache writes are priced as input.
      </p>
      {/* a form: Enter in a price saves them, as Enter in the Settings form above saves it */}
      <form
        onSubmit={(e) => {
          e.preventDefault()
          if (!saving) void save()
        }}
      >
        <table className="table compact">
          <thead>
            <tr>
              <th>Model</th>
              <th>Endpoint (optional)</th>
              <th className="num">Input $/M</th>
              <th className="num">Output $/M</th>
              <th className="num">Cache read $/M</th>
              <th>
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} data-testid="price-row">
                <td>
                  <input
                    aria-label="Model"
                    value={r.model}
                    onChange={(e) => set(i, { model: e.target.value })}
                    data-testid="price-model"
                  />
                </td>
                <td>
                  <input
                    aria-label="Endpoint base URL"
                    placeholder="any"
                    value={r.baseUrl}
                    onChange={(e) => set(i, { baseUrl: e.target.value })}
                  />
                </td>
                {PRICES.map((f) => (
                  <td key={f.key}>
                    <input
                      aria-label={f.label}
                      inputMode="decimal"
                      className="num"
                      value={r[f.key]}
                      onChange={(e) => set(i, { [f.key]: e.target.value })}
                      data-testid={f.testId}
                    />
                  </td>
                ))}
                <td>
                  <button
                    type="button"
                    className="small"
                    onClick={() => setRows(rows.filter((_, j) => j !== i))}
                    aria-label={`Remove price for ${r.model || 'row'}`}
                  >
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="row-actions">
          <button type="button" className="small" onClick={() => setRows([...rows, blank()])} data-testid="price-add">
            Add price
          </button>
          <button type="submit" className="small primary" disabled={saving} data-testid="price-save">
            {saving ? 'Saving…' : 'Save prices'}
          </button>
          {saved && (
            <span className="muted small" role="status">
              Saved.
            </span>
          )}
        </div>
      </form>
    </section>
  )
}
