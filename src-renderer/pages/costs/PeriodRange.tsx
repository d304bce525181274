import { useEffect, useState } from 'react'
import { setCostRange } from '../../stores/costs'

/**
 * A period of any length: from one local day to another (both included; either may be left empty for "from the
 * start" or "up to today"). "Custom…" opens the two dates; a chosen period keeps them open.
 */
export function PeriodRange({ from, to }: { from: string | null; to: string | null }) {
  const chosen = Boolean(from || to)
  const [open, setOpen] = useState(chosen)
  useEffect(() => {
    if (chosen) setOpen(true)
  }, [chosen])
  return (
    <span className="period-range">
      <button
        className={`small${chosen ? ' active' : ''}`}
        aria-expanded={open}
        aria-controls="costs-range-fields"
        onClick={() => setOpen(!open)}
        data-testid="costs-custom"
      >
        Custom…
      </button>
      {open && (
        <span id="costs-range-fields" className="period-fields">
          <label className="field-inline">
            From{' '}
            <input
              type="date"
              value={from ?? ''}
              max={to ?? undefined}
              onChange={(e) => void setCostRange(e.target.value || null, to)}
              data-testid="costs-from"
            />
          </label>
          <label className="field-inline">
            To{' '}
            <input
              type="date"
              value={to ?? ''}
              min={from ?? undefined}
              onChange={(e) => void setCostRange(from, e.target.value || null)}
              data-testid="costs-to"
            />
          </label>
        </span>
      )}
    </span>
  )
}
