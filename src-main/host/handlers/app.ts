import type { ProfileInfo } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { problemOf } from '../../store'
import { configProblem } from '../../config'

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
    const notices: string[] = []
    try {
      const store = s.stores.get(e.name)
      info.sessionCount = store.sessionCount()
      if (store.notice) notices.push(store.notice)
    } catch (err) {
      info.error = problemOf(err) // shown with the profile instead of a silent 0
    }
    // Its sessions are readable, but its settings are not what Settings would otherwise show (defaults).
    const config = configProblem(e.home)
    if (config) notices.push(config.message)
    if (notices.length) info.notice = notices.join('\n')
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
