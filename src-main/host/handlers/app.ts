import type { ProfileInfo } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { join } from 'node:path'
import { errorMessage } from '@shared/contract/errors'
import { configProblem } from '../../config'
import { readFileIfExists } from '../../files'
import { envFileProblem } from '../../secrets'
import { memoryFileProblems } from '../../memory'

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
      info.error = s.stores.leftOut(e.name, err).reason // shown with the profile instead of a silent 0
    }
    // Its sessions are readable, but its settings are not what Settings would otherwise show (defaults).
    const config = configProblem(e.home)
    if (config) notices.push(config.message)
    notices.push(...homeFileProblems(e.home))
    if (e.name === 'default') {
      const active = s.stores.activeProfileProblem()
      if (active) notices.push(active)
    }
    if (notices.length) info.notice = notices.join('\n')
    return info
  })
}

/**
 * The profile's files besides config.yaml that are there but cannot be read. Each is read as absent where it is used
 * (no persona; no keys from .env, whose turns are refused too), so without this the only sign would be an agent
 * without its persona or a refused turn.
 */
function homeFileProblems(home: string): string[] {
  const out: string[] = []
  const check = (file: string, consequence: string) => {
    try {
      readFileIfExists(file)
    } catch (err) {
      out.push(`${file} cannot be read (${errorMessage(err)}): ${consequence}`)
    }
  }
  check(join(home, 'SOUL.md'), 'the agent runs without its persona')
  const env = envFileProblem(home)
  if (env) out.push(env)
  // MEMORY.md / USER.md the agent's prompt goes without (not UTF-8, a folder in its place), in the Memory page's words
  out.push(...memoryFileProblems(home))
  return out
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
