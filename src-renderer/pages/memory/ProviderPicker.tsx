import { useEffect, useState } from 'react'
import type { MemoryProviderState } from '@shared/contract'
import { getApi } from '../../api'
import { RelTime } from '../../components/RelTime'
import { loadHealth, useMemory } from '../../stores/memory'
import { reportError } from '../../stores/toasts'

const STATE_TEXT: Record<string, string> = {
  none: 'built-in memory only',
  active: 'active',
  failed: 'failed to load',
  unavailable: 'unavailable',
  refused: 'refused'
}

/** Which external memory provider a profile uses (config.yaml `memory.provider`), and how its last load went. */
export function ProviderPicker({ profile }: { profile: string | null }) {
  const [state, setState] = useState<MemoryProviderState | null>(null)
  const [saving, setSaving] = useState(false)
  // New activity (e.g. the load event of a rebuilt agent) may change the outcome shown: re-read then.
  const newest = useMemory((s) => s.order[0] ?? 0)
  useEffect(() => setState(null), [profile])
  useEffect(() => {
    if (!profile) return
    let live = true
    getApi()
      .call('memory.providers', { profile })
      .then(
        (s) => {
          if (live) setState(s)
        },
        (err) => reportError(err, 'memory providers')
      )
    return () => {
      live = false
    }
  }, [profile, newest])
  if (!profile) {
    return (
      <section className="panel" data-testid="memory-provider">
        <h2 className="section-title">Memory provider</h2>
        <p className="muted">Select one profile to choose its provider.</p>
      </section>
    )
  }
  const choose = async (value: string) => {
    setSaving(true)
    try {
      setState(await getApi().call('memory.setProvider', { profile, provider: value || null }))
      void loadHealth()
    } catch (err) {
      reportError(err, 'set memory provider')
    } finally {
      setSaving(false)
    }
  }
  const load = state?.lastLoad
  // A name config.yaml holds that no choice has (a typo, another program's plugin): listed as it is, so the box does
  // not claim "Built-in only" while the status below names that provider.
  const stray = state?.configured && !state.choices.some((c) => c.name === state.configured) ? state.configured : null
  const loadMatches = load && (load.provider ?? null) === (state?.configured ?? null)
  return (
    <section className="panel" data-testid="memory-provider">
      <h2 className="section-title">Memory provider</h2>
      <label className="field-inline">
        <select
          aria-label="Memory provider"
          data-testid="memory-provider-select"
          disabled={!state || saving || Boolean(state.configError)}
          value={state?.configured ?? ''}
          onChange={(e) => void choose(e.target.value)}
        >
          <option value="">Built-in only</option>
          {stray && (
            <option value={stray} disabled>
              {stray} — not installed
            </option>
          )}
          {state?.choices.map((c) => (
            <option key={c.name} value={c.name} disabled={c.kind === 'unsupported'} title={c.description}>
              {c.name}
              {c.kind === 'plugin' ? ' (plugin)' : c.kind === 'unsupported' ? ' — not supported by Caduceus' : ''}
            </option>
          ))}
        </select>
      </label>
      <p className="small" data-testid="memory-provider-status">
        {!state ? (
          'Loading…'
        ) : state.configError ? (
          <span className="err-text" data-testid="memory-provider-config-error">
            config.yaml cannot be read, so the provider this profile uses is unknown: {state.configError.message}
          </span>
        ) : !state.configured ? (
          'Built-in memory (MEMORY.md / USER.md) only.'
        ) : loadMatches ? (
          <>
            {state.configured}:{' '}
            <span className={load!.state === 'active' ? '' : 'err-text'}>{STATE_TEXT[load!.state]}</span>{' '}
            <span className="muted">
              (<RelTime at={load!.at} />)
            </span>
            {load!.detail && load!.state !== 'active' ? <span className="err-text"> — {load!.detail}</span> : null}
          </>
        ) : state.availability?.available === false ? (
          <>
            {state.configured}: <span className="err-text">unavailable</span>
            {state.availability.detail ? <span className="err-text"> — {state.availability.detail}</span> : null}{' '}
            <span className="muted">The next turn uses built-in memory only.</span>
          </>
        ) : (
          <>
            {state.configured}: <span className="muted">takes effect on the next turn</span>
          </>
        )}
      </p>
    </section>
  )
}
