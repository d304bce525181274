import { useEffect } from 'react'
import { create } from 'zustand'
import { queryOptions, useQuery } from '@tanstack/react-query'
import { ProfileSettings, type BusyInputMode, type SettingsUpdate } from '@shared/contract'
import { getApi } from '../api'
import { errorMessage } from '../lib/format'
import { pushToast, reportError } from './toasts'
import { queryClient, requestKey } from './server'

/** The form's save state; each profile's settings are a query (`settings.get` + profile). */
interface SettingsStore {
  saving: boolean
  /** Errors by input field name (from CaduceusError.field); `_` holds errors without a field. */
  fieldErrors: Record<string, string>
}

const initial = (): SettingsStore => ({ saving: false, fieldErrors: {} })
export const useSettings = create<SettingsStore>()(() => initial())

/** The contract's fields, read from its schema: a field added there is kept here without a second list. */
const FIELDS = Object.keys(ProfileSettings.shape) as Array<keyof ProfileSettings>

/** Keep only the contract's fields: whatever a host echoes back, a key never sits in renderer state. */
function clean(s: ProfileSettings): ProfileSettings {
  return Object.fromEntries(FIELDS.flatMap((k) => (s[k] === undefined ? [] : [[k, s[k]]]))) as ProfileSettings
}

/** Cleaned inside the fetch, so the cache itself never holds more than the contract's fields. */
const settingsQuery = (profile: string) =>
  queryOptions({
    queryKey: requestKey('settings.get', { profile }),
    queryFn: async () => clean(await getApi().call('settings.get', { profile })),
    meta: { errorContext: 'Loading settings' }
  })

/** One profile's settings (null while the first read runs); opening another profile clears the form's errors. */
export function useProfileSettings(profile: string | null): ProfileSettings | null {
  useEffect(() => {
    if (profile) useSettings.setState({ fieldErrors: {} })
  }, [profile])
  const q = useQuery({ ...settingsQuery(profile ?? ''), enabled: profile != null })
  return q.data ?? null
}

/** What a message sent mid-turn does in this profile (`interrupt`, upstream's default, until the settings answer). */
export function useBusyInputMode(profile: string): BusyInputMode {
  const q = useQuery(settingsQuery(profile))
  return q.data?.busyInputMode ?? 'interrupt'
}

export async function saveSettings(update: SettingsUpdate): Promise<boolean> {
  useSettings.setState({ saving: true, fieldErrors: {} })
  try {
    const s = await getApi().call('settings.update', update)
    queryClient.setQueryData(settingsQuery(s.profile).queryKey, clean(s))
    useSettings.setState({ saving: false })
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
