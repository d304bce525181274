/**
 * "Prune…" on the Sessions page: upstream's prune through the same `sessions.prune` request the CLI sends, so
 * the selection is the CLI's (ended sessions, with the filters `hermes sessions prune` offers; an empty field is a
 * flag left out, lib/prune-form.ts). Preview is its dry run and lists every session that would go; Delete sends
 * that very filter held to the listed ids, so it deletes nothing the preview did not show.
 */
import { useEffect, useId, useRef, useState } from 'react'
import { DEFAULT_PRUNE_DAYS, MAX_PRUNE_IDS, type PruneFilterInput, type SessionPruneResult } from '@shared/contract'
import { getApi } from '../../api'
import { Dialog } from '../../components/Dialog'
import { formatDateTime } from '../../lib/format'
import {
  INITIAL_FIELDS,
  MORE_FIELDS,
  moreFiltersSet,
  pruneRequest,
  type ArchivedMode,
  type PruneFields,
  type TextField
} from '../../lib/prune-form'
import { reloadSessions } from '../../stores/sessions'
import { reportError } from '../../stores/toasts'

const LABELS: Record<TextField, string> = {
  days: 'Older than (days)',
  source: 'Source',
  model: 'Model contains',
  title: 'Title contains',
  after: 'Started after',
  before: 'Started before',
  provider: 'Provider',
  endReason: 'End reason',
  cwd: 'Working directory (prefix)',
  branch: 'Git branch contains',
  user: 'User id',
  chatId: 'Chat id',
  chatType: 'Chat type',
  minMessages: 'at least',
  maxMessages: 'at most',
  minTokens: 'at least',
  maxTokens: 'at most',
  minCost: 'at least',
  maxCost: 'at most',
  minToolCalls: 'at least',
  maxToolCalls: 'at most'
}
/** The bounds, a pair to a row under the measure's name (which each field's label starts with, for screen readers). */
const BOUNDS: ReadonlyArray<[string, TextField, TextField]> = [
  ['Messages', 'minMessages', 'maxMessages'],
  ['Tokens', 'minTokens', 'maxTokens'],
  ['Cost (USD)', 'minCost', 'maxCost'],
  ['Tool calls', 'minToolCalls', 'maxToolCalls']
]
const IN_BOUNDS = new Set(BOUNDS.flatMap(([, lo, hi]) => [lo, hi]))
const DECIMAL_FIELDS = new Set<TextField>(['days', 'minCost', 'maxCost'])
const WHOLE_FIELDS = new Set<TextField>([
  'minMessages',
  'maxMessages',
  'minTokens',
  'maxTokens',
  'minToolCalls',
  'maxToolCalls'
])
const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const plural = (n: number) => `${n} session${n === 1 ? '' : 's'}`

interface Preview {
  filter: PruneFilterInput
  result: SessionPruneResult
}
interface Done {
  result: SessionPruneResult
  previewed: number
}

function PruneDialog({ profile, onClose }: { profile: string; onClose: () => void }) {
  const base = useId()
  const idOf = (k: TextField) => `${base}-${kebab(k)}`
  const [fields, setFields] = useState<PruneFields>(INITIAL_FIELDS)
  const [showErrors, setShowErrors] = useState(false)
  const [more, setMore] = useState(false)
  const [focusField, setFocusField] = useState<TextField | null>(null)
  const [preview, setPreview] = useState<Preview | null>(null)
  const [done, setDone] = useState<Done | null>(null)
  const [busy, setBusy] = useState(false)
  // a fresh preview scrolls into view: with "More filters" open it lands below the fold
  const [reveal, setReveal] = useState(false)
  const previewRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!reveal) return
    previewRef.current?.scrollIntoView({ block: 'nearest' })
    setReveal(false)
  }, [reveal])
  // what the fields say now (errors, whether the bare prune's cutoff applies); the clock only matters when sent
  const live = pruneRequest(fields, Date.now() / 1000)
  const errors = showErrors ? live.errors : {}

  // the first field a preview refused takes focus once it is rendered (it may sit in "More filters", opened with it)
  useEffect(() => {
    if (!focusField) return
    document.getElementById(`${base}-${kebab(focusField)}`)?.focus()
    setFocusField(null)
  }, [focusField, base])

  const set = (k: keyof PruneFields, v: string) => {
    setFields((f) => ({ ...f, [k]: v }))
    setPreview(null)
  }

  const runPreview = async () => {
    const req = pruneRequest(fields, Date.now() / 1000)
    const bad = (Object.keys(LABELS) as TextField[]).find((k) => req.errors[k])
    if (bad) {
      setShowErrors(true)
      if (MORE_FIELDS.includes(bad)) setMore(true)
      setFocusField(bad)
      return
    }
    setShowErrors(false)
    setBusy(true)
    try {
      const result = await getApi().call('sessions.prune', { profile, ...req.filter, dryRun: true })
      setPreview({ filter: req.filter, result })
      setReveal(true)
      setDone(null)
    } catch (err) {
      reportError(err, 'Prune')
    } finally {
      setBusy(false)
    }
  }

  const confirm = async () => {
    if (!preview) return
    const ids = (preview.result.candidates ?? []).map((c) => c.id)
    setBusy(true)
    try {
      const result = await getApi().call('sessions.prune', { profile, ...preview.filter, sessionIds: ids })
      setDone({ result, previewed: ids.length })
      setPreview(null)
      void reloadSessions()
    } catch (err) {
      reportError(err, 'Prune')
    } finally {
      setBusy(false)
    }
  }

  const field = (k: TextField, hint?: string, measure?: string) => {
    const id = idOf(k)
    const err = errors[k]
    const described = [hint ? `${id}-hint` : '', err ? `${id}-err` : ''].filter(Boolean).join(' ')
    return (
      <div className={`field${err ? ' has-error' : ''}`} key={k}>
        <label htmlFor={id}>
          {measure && <span className="sr-only">{measure}, </span>}
          {LABELS[k]}
        </label>
        <input
          id={id}
          type={k === 'after' || k === 'before' ? 'datetime-local' : 'text'}
          inputMode={DECIMAL_FIELDS.has(k) ? 'decimal' : WHOLE_FIELDS.has(k) ? 'numeric' : undefined}
          value={fields[k]}
          placeholder={k === 'days' || k === 'after' || k === 'before' ? undefined : 'any'}
          aria-invalid={err ? true : undefined}
          aria-describedby={described || undefined}
          data-testid={`prune-${kebab(k)}`}
          onChange={(e) => set(k, e.target.value)}
        />
        {hint && (
          <span id={`${id}-hint`} className="muted small">
            {hint}
          </span>
        )}
        {err && (
          <span id={`${id}-err`} className="err-text small" data-testid={`prune-error-${kebab(k)}`}>
            {err}
          </span>
        )}
      </div>
    )
  }

  const daysHint = fields.days.trim()
    ? undefined
    : live.defaultAge
      ? `Empty with no other filter: ${DEFAULT_PRUNE_DAYS} days, as a bare hermes sessions prune`
      : 'Empty: any age, since another filter is set'
  const moreCount = moreFiltersSet(fields)
  const candidates = preview?.result.candidates ?? []
  const formId = `${base}-form`
  const archivedId = `${base}-archived`
  const moreId = `${base}-more`
  return (
    <Dialog
      title={`Prune sessions in ${profile}`}
      onClose={onClose}
      testId="prune-dialog"
      footer={
        <>
          <button data-dialog-cancel onClick={onClose}>
            {done ? 'Close' : 'Cancel'}
          </button>
          <button type="submit" form={formId} disabled={busy} data-testid="prune-preview">
            Preview
          </button>
          <button
            className="primary danger"
            disabled={busy || !preview || candidates.length === 0 || candidates.length > MAX_PRUNE_IDS}
            data-testid="prune-confirm"
            onClick={() => void confirm()}
          >
            Delete {plural(candidates.length)}
          </button>
        </>
      }
    >
      <p className="muted small">
        Ended sessions matching every filter given, as <code>hermes sessions prune</code> selects them; running sessions
        are never pruned, archived ones only when asked for, and children outside the selection are kept (detached). An
        empty field is no filter.
      </p>
      <form
        id={formId}
        className="prune-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault()
          if (!busy) void runPreview()
        }}
      >
        <div className="prune-grid">
          {field('days', daysHint)}
          {field('source')}
          <div className="field">
            <label htmlFor={archivedId}>Archived sessions</label>
            <select
              id={archivedId}
              value={fields.archived}
              data-testid="prune-archived"
              onChange={(e) => set('archived', e.target.value as ArchivedMode)}
            >
              <option value="keep">Keep them</option>
              <option value="include">Include them</option>
              <option value="only">Only them</option>
            </select>
          </div>
        </div>
        <button
          type="button"
          className="small prune-more-toggle"
          aria-expanded={more}
          aria-controls={moreId}
          data-testid="prune-more"
          onClick={() => setMore((m) => !m)}
        >
          More filters
          {moreCount ? ` (${moreCount} set)` : ''}
        </button>
        <div id={moreId} className="prune-more" hidden={!more} data-testid="prune-more-filters">
          {more && (
            <>
              <div className="prune-grid">{MORE_FIELDS.filter((k) => !IN_BOUNDS.has(k)).map((k) => field(k))}</div>
              <div className="prune-grid">
                {BOUNDS.map(([measure, lo, hi]) => (
                  <div className="prune-bound" key={measure}>
                    <span className="field-label" aria-hidden="true">
                      {measure}
                    </span>
                    <div className="prune-pair">
                      {field(lo, undefined, measure)}
                      {field(hi, undefined, measure)}
                    </div>
                  </div>
                ))}
              </div>
            </>
          )}
        </div>
      </form>
      {preview && (
        <div data-testid="prune-candidates" ref={previewRef}>
          <p className="small" role="status">
            {candidates.length === 0 ? 'Nothing matches.' : `${plural(candidates.length)} would be deleted`}
          </p>
          {candidates.length > 0 && (
            <ul className="prune-list small" tabIndex={0} aria-label="Sessions that would be deleted">
              {candidates.map((c) => (
                <li key={c.id} data-testid="prune-candidate" data-session-id={c.id}>
                  {c.title ?? c.id} · {c.source}
                  {c.model ? ` · ${c.model}` : ''} · {c.messageCount} message{c.messageCount === 1 ? '' : 's'} · started{' '}
                  {formatDateTime(c.startedAt)}
                </li>
              ))}
            </ul>
          )}
          {candidates.length > MAX_PRUNE_IDS && (
            <p className="err-text small">
              More than {MAX_PRUNE_IDS} sessions: narrow the filters, or use <code>caduceus sessions prune</code>.
            </p>
          )}
        </div>
      )}
      {done && (
        <p className="small" role="status" data-testid="prune-done">
          Deleted {plural(done.result.deleted)}
          {done.result.detached
            ? `; ${done.result.detached} child session${done.result.detached === 1 ? '' : 's'} kept, detached`
            : ''}
          {done.result.deleted < done.previewed
            ? `; ${done.previewed - done.result.deleted} of those previewed no longer matched and were kept`
            : ''}
          .
        </p>
      )}
    </Dialog>
  )
}

/** The Sessions page's "Prune…" button; a single profile only (prune acts on one home). */
export function PruneButton({ scope }: { scope: string }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button
        className="small"
        data-testid="prune-open"
        disabled={scope === 'all'}
        title={scope === 'all' ? 'Choose a profile to prune' : `Prune old sessions in ${scope}`}
        onClick={() => setOpen(true)}
      >
        Prune…
      </button>
      {open && <PruneDialog profile={scope} onClose={() => setOpen(false)} />}
    </>
  )
}
