// The CLI's usage text, in its own module so `caduceus --help` prints it without loading the host.
export const USAGE = `caduceus — dashboard and agent host for Hermes-style agents

  caduceus serve [--home DIR] [--port N] [--demo] [--rotate-token]
                                                           headless host: UI + API on 127.0.0.1 (token in the URL;
                                                           kept across restarts, --rotate-token replaces it)
  caduceus sessions list   [--home DIR] [--profile P] [--limit N] [--json]
  caduceus sessions show   <id> [--home DIR] [--profile P] [--json]
  caduceus sessions search <text> [--home DIR] [--profile P] [--limit N] [--json]
  caduceus logs errors [--limit N]                          recent warnings and errors (memory refusals land here)
  caduceus --help | -h                                      this text
`

/** Asking for help is never an error, whatever else is on the line. */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h') || argv[0] === 'help'
}
