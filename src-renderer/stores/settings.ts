import { create } from 'zustand'
import type { ProfileSettings, SettingsUpdate } from '@shared/contract'
import { getApi } from '../api'
import { errorMessage } from '../lib/format'
import { pushToast, reportError } from './toasts'

interface SettingsStore {
  byProfile: Record<string, ProfileSettings>
  loading: boolean
  saving: boolean
  /** Errors by input field name (from CaduceusError.field); `_` holds errors without a field. */
  fieldErrors: Record<string, string>
}

const initial = (): SettingsStore => ({ byProfile: {}, loading: false, saving: false, fieldErrors: {} })
export const useSettings = create<SettingsStore>()(() => initial())

/** Keep only the contract's fields: whatever a host echoes back, a key never sits in renderer state. */
function clean(s: ProfileSettings): ProfileSettings {
  const {
    profile,
    provider,
    baseUrl,
    model,
    apiMode,
    apiKeySet,
    apiKeyStorage,
    maxIterations,
    compressionThreshold,
    demo
  } = s
  return {
    profile,
    provider,
    baseUrl,
    model,
    apiMode,
    apiKeySet,
    apiKeyStorage,
    maxIterations,
    compressionThreshold,
    demo
  }
}

export async function loadSettings(profile: string): Promise<void> {
  useSettings.setState({ loading: true, fieldErrors: {} })
  try {
    const s = await getApi().call('settings.get', { profile })
    useSettings.setState((st) => ({ byProfile: { ...st.byProfile, [profile]: clean(s) }, loading: false }))
  } catch (err) {
    useSettings.setState({ loading: false })
    reportError(err, 'Loading settings')
  }
}

export async function saveSettings(update: SettingsUpdate): Promise<boolean> {
  useSettings.setState({ saving: true, fieldErrors: {} })
  try {
    const s = await getApi().call('settings.update', update)
    useSettings.setState((st) => ({ byProfile: { ...st.byProfile, [s.profile]: clean(s) }, saving: false }))
    pushToast('info', `Settings saved for ${s.profile}`)
    return true
  } catch (err) {
    const field = (err as { field?: string })?.field
    const msg = errorMessage(err)
    // Only the last path segment names the form field ("baseUrl", not "input.baseUrl").
    const key = field ? field.split('.').pop()! : '_'
    // shown under the field itself, so "baseUrl: base URL must be a URL" reads better without the path
    const inline = field ? msg.replace(new RegExp(`^(input\\.)?${key.replace(/[^\w]/g, '')}:\\s*`), '') : msg
    useSettings.setState({ saving: false, fieldErrors: { [key]: inline || msg } })
    if (!field) reportError(err, 'Saving settings')
    return false
  }
}
