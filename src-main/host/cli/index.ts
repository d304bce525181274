// host/cli/: the `caduceus` command line (its entry is main.ts); the Electron entry parses the same flags.
export { parseArgs } from './args'
