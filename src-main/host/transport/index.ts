// host/transport/: the headless HTTP + WebSocket transport and the request guards every HTTP server in the host shares.
export { startHeadless } from './http-transport'
export { bindHttp, describeListenError } from './listen'
export { parseAllowedHosts } from './allowed-hosts'
export { guardServer, safeDecodePath } from './request-guards'
export { appCsp, contentType } from './static-files'
