/**
 * The profile a command acts on when `--profile` names none, chosen as upstream's CLI chooses it
 * (scripts/golden/profile_choice.py): the profile whose folder the home is (`--home` or `$HERMES_HOME` =
 * `<root>/profiles/<name>`), else the one the root's `active_profile` file names (`hermes profile use` writes it),
 * else none, and the command keeps its own default (`default`; every profile for list and search). A file naming a
 * profile that does not exist stops the command: acting on `default` instead would export, prune or run in the
 * wrong profile.
 */
import { join } from 'node:path'
import { isValidProfileName } from '../../scope'
import { discoverProfiles, StoreRegistry } from '../../store'
import { resolveRoot } from '../compose'
import type { HostArgs } from './args'

export function impliedProfile(home: string | null | undefined): string | undefined {
  const { root, profile } = resolveRoot(home)
  if (profile) return profile
  const profiles = new StoreRegistry(root) // discovery only: no state.db is opened
  const name = profiles.activeProfileName()
  if (name === null) return undefined
  if (!isValidProfileName(name))
    throw new Error(`${join(root, 'active_profile')} names ${JSON.stringify(name)}, which is not a profile name`)
  if (!profiles.has(name))
    throw new Error(`the active profile '${name}' (${join(root, 'active_profile')}) does not exist`)
  return name
}

/** `--profile`, else the implied profile, else the command's own default. */
export function profileOf(args: Pick<HostArgs, 'home' | 'profile'>, fallback: string): string {
  return args.profile ?? impliedProfile(args.home) ?? fallback
}

/** The profile a one-profile command acts on (profileOf, else `default`) and its folder; an unknown one throws. */
export function profileHome(args: Pick<HostArgs, 'home' | 'profile'>): { profile: string; home: string } {
  const profile = profileOf(args, 'default')
  const entry = discoverProfiles(resolveRoot(args.home).root).find((p) => p.name === profile)
  if (!entry) throw new Error(`Unknown profile: ${profile}`)
  return { profile, home: entry.home }
}
