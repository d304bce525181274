import { configProblem, writeMemoryProvider } from '../../config'
import { secretsFor, type SecretVault } from '../../secrets'
import type { HandlerMap } from '../dispatch'
import type { MemoryProviderHost } from '../memory-providers'
import type { Services } from '../services'

type Handlers = Pick<HandlerMap, 'memory.providers' | 'memory.setProvider'>

/** The provider picker: what a profile has configured, how its last load went, and what it can pick. */
export function memoryProviderHandlers(s: Services, providers: MemoryProviderHost, vault: SecretVault): Handlers {
  const state = (profile: string) => {
    const home = s.homeOf(profile)
    // An unreadable config.yaml names no provider: say so rather than show "built-in memory only".
    const configError = configProblem(home)
    return {
      profile,
      configured: providers.configured(home),
      ...(configError ? { configError } : {}),
      lastLoad: providers.statusOf(profile),
      availability: providers.availability(profile, home, secretsFor(home, vault)),
      choices: providers.choices(home)
    }
  }
  return {
    'memory.providers': ({ profile }) => state(profile),
    'memory.setProvider': ({ profile, provider }) => {
      // The signature includes memory.provider: the next turn of every cached agent of this profile rebuilds.
      writeMemoryProvider(s.homeOf(profile), provider === 'builtin' ? null : provider)
      return state(profile)
    }
  }
}
