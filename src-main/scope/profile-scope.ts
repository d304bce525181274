import { withHomeOverride, withSecretScope } from './scope'

/**
 * Enter a profile's full scope (upstream `_profile_runtime_scope`): its secret scope, which alone proves the
 * turn's profile to a memory provider, and inside it the home override every path lookup reads.
 */
export function runInProfileScope<T>(home: string, secrets: Readonly<Record<string, string>>, fn: () => T): T {
  return withSecretScope({ profileHome: home, secrets }, () => withHomeOverride(home, fn))
}
