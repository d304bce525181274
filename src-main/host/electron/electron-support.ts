// What the Electron entry needs from the host besides createHost: the argument parser and the pure policy
// functions it wires to Electron's hooks. One object, so the host's face stays small and the entry never reaches
// into host internals.
import { parseArgs } from '../cli/args'
import {
  APP_ORIGIN,
  APP_SCHEME,
  appRequestPath,
  appResponseHeaders,
  closeWithDeadline,
  devicePermissionAllowed,
  devToolsAllowed,
  externalUrlToOpen,
  filterAppArgs,
  frameNavigationAllowed,
  isAppUrl,
  permissionAllowed
} from './app-policy'
import { installLastResort } from '../log/last-resort'
import { contentType } from '../transport/static-files'

export const electronSupport = {
  parseArgs,
  installLastResort,
  contentType,
  APP_ORIGIN,
  APP_SCHEME,
  appRequestPath,
  appResponseHeaders,
  closeWithDeadline,
  devicePermissionAllowed,
  devToolsAllowed,
  externalUrlToOpen,
  filterAppArgs,
  frameNavigationAllowed,
  isAppUrl,
  permissionAllowed
} as const
