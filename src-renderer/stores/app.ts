import { create } from 'zustand'
import type { AppInfo, ProfileInfo, ProfileScope } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'
import { coalesce } from './server'

export type ThemeChoice = 'system' | 'light' | 'dark'

interface AppStore {
  info: AppInfo | null
  profiles: ProfileInfo[]
  /** Which profile the pages show: 'all' or one profile. */
  scope: ProfileScope
  theme: ThemeChoice
  loaded: boolean
}

const initial: AppStore = { info: null, profiles: [], scope: 'all', theme: 'system', loaded: false }
export const useApp = create<AppStore>()(() => ({ ...initial }))

export async function loadApp(): Promise<void> {
  try {
    const info = await getApi().call('app.info')
    useApp.setState((s) => ({
      info,
      profiles: info.profiles,
      loaded: true,
      // a remembered scope that no longer exists falls back to All
      scope: s.scope !== 'all' && !info.profiles.some((p) => p.name === s.scope) ? 'all' : s.scope
    }))
  } catch (err) {
    useApp.setState({ loaded: true })
    reportError(err, 'Loading app info')
  }
}

export async function refreshProfiles(): Promise<void> {
  try {
    const profiles = await getApi().call('profiles.list')
    useApp.setState((s) => ({
      profiles,
      scope: s.scope !== 'all' && !profiles.some((p) => p.name === s.scope) ? 'all' : s.scope
    }))
  } catch (err) {
    reportError(err, 'Loading profiles')
  }
}

/**
 * The rail's session counts after sessions changed (this or another process started, deleted or pruned some): one
 * `profiles.list` pass for a burst of changes (a turn's messages, a bulk delete), one more if changes came during it.
 */
export const recountProfiles: () => Promise<void> = coalesce(refreshProfiles)

export function setScope(scope: ProfileScope): void {
  if (useApp.getState().scope === scope) return
  useApp.setState({ scope })
}

export function setTheme(theme: ThemeChoice): void {
  useApp.setState({ theme })
}

export function profileNames(): string[] {
  return useApp.getState().profiles.map((p) => p.name)
}
