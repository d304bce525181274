// The provider bench's hostile provider in its own process (its event loop must not be the agent's):
// `node --import tsx hostile-provider.ts` prints the port, then serves `hostileRoute` until killed.
import { hostileRoute, startRouteServer } from './route-server'

const provider = await startRouteServer(hostileRoute)
console.log(provider.port)
