/**
 * Checks a stateless channel makes before its turn, so a script gets one clear line instead of a provider's
 * 401 after a network round trip: the profile must exist and have a key for its provider.
 */
import { resolveRuntime } from '../../config'
import { EnvFileVault } from '../../secrets'

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/

/** Null when the profile can run a turn; otherwise the reason, one line, without the key's value. */
export function missingKeyReason(home: string): string | null {
  // The command line has no OS keychain: its vault is the profile's .env, the one createTurnHost builds too.
  const rt = resolveRuntime(home, { vault: new EnvFileVault() })
  if (rt.configError)
    return rt.configError.code === 'unreadable_env'
      ? rt.configError.message
      : `config.yaml of ${home} is invalid: ${rt.configError.message}`
  if (rt.provider === 'demo' || rt.apiKey) return null
  // A local server (Ollama, LM Studio, the scripted provider) needs no key.
  try {
    if (LOOPBACK.test(new URL(rt.baseUrl).hostname)) return null
  } catch {
    /* fall through: an unusable base URL is reported as the missing key it also lacks */
  }
  return rt.apiKeyEnv
    ? `no API key for provider ${rt.provider}: set ${rt.apiKeyEnv} in ${home}/.env`
    : `no API key for ${rt.baseUrl}: set model.api_key in ${home}/config.yaml (no key name fits that host)`
}
