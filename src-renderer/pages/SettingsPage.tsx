import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { ProfileSettings } from '@shared/contract'
import { navigate } from '../app/router'
import { actingProfile } from '../app/routes'
import { Dialog } from '../components/Dialog'
import { useApp } from '../stores/app'
import { saveSettings, useProfileSettings, useSettings } from '../stores/settings'
import { PriceOverrides } from './settings/PriceOverrides'
import { compressionText } from '../lib/compression-text'

const STORAGE: Record<ProfileSettings['apiKeyStorage'], string> = {
  safe_storage: 'stored in the OS keychain',
  // a new .env is 0600; an existing one keeps its owner and group bits (secrets/env-file.ts), never others'
  env_file: "stored in the profile's .env, which other users cannot read",
  config: "stored in config.yaml's model.api_key, where upstream keeps a custom endpoint's key",
  none: 'not stored'
}

function Field({
  label,
  name,
  error,
  children
}: {
  label: string
  name: string
  error?: string
  children: React.ReactNode
}) {
  return (
    <label className={`field${error ? ' has-error' : ''}`} data-testid={`settings-field-${name}`}>
      <span className="field-label">{label}</span>
      {children}
      {error && (
        <span className="err-text" role="alert" data-testid={`settings-error-${name}`}>
          {error}
        </span>
      )}
    </label>
  )
}

function SettingsForm({ s }: { s: ProfileSettings }) {
  const fieldErrors = useSettings((st) => st.fieldErrors)
  const saving = useSettings((st) => st.saving)
  const [form, setForm] = useState({
    provider: s.provider,
    baseUrl: s.baseUrl,
    model: s.model,
    apiMode: s.apiMode,
    busyInputMode: s.busyInputMode
  })
  const [key, setKey] = useState('')
  const [confirmRemove, setConfirmRemove] = useState(false)
  const compression = compressionText(s.compression)
  const dirty =
    key !== '' ||
    form.provider !== s.provider ||
    form.baseUrl !== s.baseUrl ||
    form.model !== s.model ||
    form.apiMode !== s.apiMode ||
    form.busyInputMode !== s.busyInputMode
  const save = async () => {
    // Only what the user changed: the form shows resolved values (a provider inferred from the key, the default
    // base URL), and writing those back would pin choices in config.yaml the user never made.
    const changed = Object.fromEntries(Object.entries(form).filter(([k, v]) => v !== s[k as keyof typeof form]))
    const ok = await saveSettings({ profile: s.profile, ...changed, ...(key ? { apiKey: key } : {}) })
    if (ok) setKey('') // the key is write-only: never kept after it left for the host
  }
  return (
    <form
      className="settings-form"
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
      data-testid="settings-form"
      data-profile={s.profile}
    >
      {s.demo && <div className="warn-box">This profile uses the scripted demo model.</div>}
      <Field label="Provider" name="provider" error={fieldErrors.provider}>
        <input
          value={form.provider}
          onChange={(e) => setForm({ ...form, provider: e.target.value })}
          data-testid="settings-provider"
        />
      </Field>
      <Field label="Base URL" name="baseUrl" error={fieldErrors.baseUrl}>
        <input
          className="mono"
          value={form.baseUrl}
          onChange={(e) => setForm({ ...form, baseUrl: e.target.value })}
          data-testid="settings-base-url"
        />
      </Field>
      <Field label="Model" name="model" error={fieldErrors.model}>
        <input
          className="mono"
          value={form.model}
          onChange={(e) => setForm({ ...form, model: e.target.value })}
          data-testid="settings-model"
        />
      </Field>
      <Field label="API mode" name="apiMode" error={fieldErrors.apiMode}>
        <select
          value={form.apiMode}
          onChange={(e) => setForm({ ...form, apiMode: e.target.value as ProfileSettings['apiMode'] })}
          data-testid="settings-api-mode"
        >
          <option value="chat_completions">OpenAI-compatible (chat completions)</option>
          <option value="anthropic_messages">Anthropic messages</option>
        </select>
      </Field>
      <Field label="API key" name="apiKey" error={fieldErrors.apiKey}>
        <input
          type="password"
          autoComplete="off"
          placeholder={s.apiKeySet ? '•••••••• (leave empty to keep)' : 'paste a key'}
          value={key}
          onChange={(e) => setKey(e.target.value)}
          data-testid="settings-api-key"
        />
        <span className="muted small" data-testid="settings-key-status">
          {s.apiKeySet ? 'key set' : 'no key'} · {STORAGE[s.apiKeyStorage]}
        </span>
      </Field>
      <Field label="Sending while a turn runs" name="busyInputMode" error={fieldErrors.busyInputMode}>
        <select
          value={form.busyInputMode}
          onChange={(e) => setForm({ ...form, busyInputMode: e.target.value as ProfileSettings['busyInputMode'] })}
          data-testid="settings-busy-input-mode"
        >
          <option value="interrupt">Interrupt: stop the turn, answer the new message</option>
          <option value="queue">Queue: answer it after the turn ends</option>
          <option value="steer">Steer: add it to the running turn</option>
        </select>
        <span className="muted small">
          <code>display.busy_input_mode</code> in config.yaml, shared with upstream Hermes
        </span>
      </Field>
      <div className="muted small" data-testid="settings-limits">
        Max iterations {s.maxIterations ?? 'unlimited'} ·{' '}
        <span data-testid="settings-compression">{compression.trigger}</span>
        {compression.why && <span data-testid="settings-compression-why"> — {compression.why}</span>}
      </div>
      {fieldErrors._ && (
        <div className="err-text" role="alert">
          {fieldErrors._}
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={!dirty || saving} data-testid="settings-save">
          {saving ? 'Saving…' : 'Save'}
        </button>
        {s.apiKeySet && (
          <button
            type="button"
            className="danger"
            onClick={() => setConfirmRemove(true)}
            data-testid="settings-clear-key"
          >
            Remove key
          </button>
        )}
      </div>
      {confirmRemove && (
        <Dialog
          title="Remove the API key?"
          onClose={() => setConfirmRemove(false)}
          testId="settings-clear-key-dialog"
          danger
          footer={
            <>
              <button type="button" onClick={() => setConfirmRemove(false)} data-dialog-cancel>
                Cancel
              </button>
              <button
                type="button"
                className="primary danger"
                data-testid="settings-clear-key-confirm"
                onClick={() => {
                  setConfirmRemove(false)
                  void saveSettings({ profile: s.profile, apiKey: '' })
                }}
              >
                Remove key
              </button>
            </>
          }
        >
          <p>
            Turns in <b>{s.profile}</b> will fail until a new key is saved.
          </p>
        </Dialog>
      )}
    </form>
  )
}

/** In place of the form: the profile's settings are unknown while its config.yaml cannot be read. */
function ConfigUnreadable({ problem }: { problem: NonNullable<ProfileSettings['configError']> }) {
  return (
    <div className="warn-box" role="alert" data-testid="settings-config-error">
      <p>
        <b>This profile&apos;s config.yaml cannot be read</b>, so its provider, model and other settings are not known
        here. Turns and saves are refused until it is fixed.
      </p>
      <p className="mono small" data-testid="settings-config-error-detail">
        {problem.message}
      </p>
      <p className="muted small">Fix the file in an editor; this page reads it again each time it opens.</p>
    </div>
  )
}

/** Provider settings per profile; the profile comes from the route, else the rail selection, else the active one. */
export function SettingsPage({ profile }: { profile: string | null }) {
  const { profiles, scope } = useApp(useShallow((s) => ({ profiles: s.profiles, scope: s.scope })))
  const name = profile ?? actingProfile(scope, profiles) ?? null
  const settings = useProfileSettings(name)
  return (
    <div className="settings-page">
      <div className="toolbar">
        <h1 className="page-title">Settings</h1>
        <select
          aria-label="Profile"
          value={name ?? ''}
          onChange={(e) => navigate({ page: 'settings', profile: e.target.value })}
          data-testid="settings-profile"
        >
          {profiles.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      {!name ? (
        <div className="empty">No profiles.</div>
      ) : settings?.configError ? (
        <ConfigUnreadable problem={settings.configError} />
      ) : settings ? (
        <SettingsForm
          key={`${name}:${settings.provider}:${settings.baseUrl}:${settings.model}:${settings.apiMode}`}
          s={settings}
        />
      ) : (
        <div className="muted pad">Loading…</div>
      )}
      <PriceOverrides />
    </div>
  )
}
