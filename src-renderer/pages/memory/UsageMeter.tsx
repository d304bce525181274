import type { MemoryUsage } from '@shared/contract'

const grouped = (n: number) => n.toLocaleString('en-US')

/** From here a file reads as nearly full: a few more entries and the agent's adds are refused. */
const NEAR_PERCENT = 80

/**
 * How full one memory file is, as the host counts it for the memory tool's limit (`memory.entries`' usage): the
 * figure, and a meter whose tone turns to a warning near the limit and to an error at or past it (a file edited by
 * hand can hold more than its limit; the tool then refuses every add until entries go). The tone is said in words
 * too, not by colour alone.
 */
export function UsageMeter({ usage, file, profile }: { usage: MemoryUsage; file: string; profile: string }) {
  const { used, limit, percent } = usage
  const max = Math.max(limit, 0)
  const tone = used >= limit ? 'full' : percent >= NEAR_PERCENT ? 'near' : 'ok'
  const note = used > limit ? 'over its limit' : tone === 'full' ? 'full' : tone === 'near' ? 'nearly full' : null
  const figure = `${grouped(used)} / ${grouped(limit)} chars`
  return (
    <div className={`memory-usage usage-${tone}`} data-testid="memory-usage" data-tone={tone}>
      <div
        className="usage-bar"
        role="meter"
        aria-label={`${file} of ${profile}: characters used of its limit`}
        aria-valuemin={0}
        aria-valuemax={max}
        // within the range, as ARIA asks; the text says when the file holds more than its limit
        aria-valuenow={Math.min(used, max)}
        aria-valuetext={`${grouped(used)} of ${grouped(limit)} characters (${percent}%)${note ? `, ${note}` : ''}`}
      >
        <span className="usage-fill" style={{ width: `${limit > 0 ? Math.min(100, (used / limit) * 100) : 100}%` }} />
      </div>
      <span className="usage-figure small" data-testid="memory-usage-figure">
        {figure}
        {note && <span className="usage-note"> · {note}</span>}
      </span>
    </div>
  )
}
