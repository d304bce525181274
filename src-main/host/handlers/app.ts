import type { ProfileInfo } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'

export const LOG_COMMAND = 'caduceus logs errors'

function profiles(s: Services): ProfileInfo[] {
  return s.stores.list().map((e) => {
    let sessionCount = 0
    try {
      sessionCount = s.stores.get(e.name).sessionCount()
    } catch (err) {
      s.log.warn('store', `cannot count sessions of ${e.name}: ${(err as Error).message}`)
    }
    return { name: e.name, home: e.home, isDefault: e.name === 'default', sessionCount }
  })
}

export function appHandlers(s: Services, version: string): Pick<HandlerMap, 'app.info' | 'profiles.list'> {
  return {
    'app.info': () => ({ version, root: s.root, headless: s.headless, demo: s.demo, profiles: profiles(s), logCommand: LOG_COMMAND }),
    'profiles.list': () => profiles(s)
  }
}
