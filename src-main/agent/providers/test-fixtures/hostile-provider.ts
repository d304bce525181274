// The provider bench's hostile provider in its own process (its event loop must not be the agent's):
// `node --import tsx hostile-provider.ts` prints the port, then serves `hostileRoute` until killed.
import { hostileRoute, startScriptedProvider } from './scripted-provider'

const provider = await startScriptedProvider(hostileRoute)
console.log(provider.port)
