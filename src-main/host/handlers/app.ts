import type { ProfileInfo } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { problemOf } from '../../store'

export const LOG_COMMAND = 'caduceus logs errors'

function profiles(s: Services): ProfileInfo[] {
  const active = s.activeProfile()
  return s.stores.list().map((e) => {
    const info: ProfileInfo = {
      name: e.name,
      home: e.home,
      isDefault: e.name === 'default',
      isActive: e.name === active,
      sessionCount: 0
    }
    try {
      const store = s.stores.get(e.name)
      info.sessionCount = store.sessionCount()
      const notice = store.notice
      if (notice) info.notice = notice
    } catch (err) {
      info.error = problemOf(err) // shown with the profile instead of a silent 0
    }
    return info
  })
}

export function appHandlers(s: Services, version: string): Pick<HandlerMap, 'app.info' | 'profiles.list'> {
  return {
    'app.info': () => ({
      version,
      root: s.root,
      headless: s.headless,
      demo: s.demo,
      profiles: profiles(s),
      logCommand: LOG_COMMAND
    }),
    'profiles.list': () => profiles(s)
  }
}
