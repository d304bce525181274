/**
 * Profile scope: the Node equivalent of upstream's HERMES_HOME override, secret scope and multiplex
 * contextvars, on AsyncLocalStorage. Every turn, tool call and memory hook of a multiplexed host runs
 * inside exactly one profile's scope (ARCHITECTURE invariant 6).
 */
export {
  getHermesHome,
  getHomeOverride,
  withHomeOverride,
  currentSecretScope,
  isMultiplexActive,
  claimProfiles,
  ctxBound
} from './scope'
export { runInProfileScope } from './profile-scope'
export { homeKey, profileNameForHome, setDefaultRoot, getDefaultRoot, profileHome, isValidProfileName } from './homes'
export { withFlock } from './flock'
