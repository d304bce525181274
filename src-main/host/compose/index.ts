// host/compose/: the composition root — builds one service graph per app and the dispatcher in front of it.
export { createHost, type Host, type HostOptions } from './create-host'
export { createTurnHost } from './create-turn-host'
export { appDataDir, appDir, appVersion, logPaths, resolveRoot } from './root'
