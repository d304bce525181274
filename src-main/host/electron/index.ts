// host/electron/: the Electron window's security policy as pure functions; src-main/index.ts wires them to Electron.
export {
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
  ipcSenderAllowed,
  isAppUrl,
  permissionAllowed
} from './app-policy'
export { contentType } from '../transport'
