/** Which profile a state.db belongs to, from its path (hermes-spec §1.1 ownership derivation). */
import { basename, dirname, resolve } from 'node:path'
import { getDefaultRoot, isValidProfileName } from '../scope'

/** `default` for `<root>/state.db`, the name for `<root>/profiles/<name>/state.db`, else null (never guessed). */
export function ownerProfileForDb(path: string, root: string = getDefaultRoot()): string | null {
  const home = dirname(resolve(path))
  if (home === resolve(root)) return 'default'
  const name = basename(home)
  return basename(dirname(home)) === 'profiles' && isValidProfileName(name) ? name : null
}
