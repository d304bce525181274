/**
 * `terminal:` in config.yaml. Off by default: the terminal tool runs model-chosen shell commands on the
 * user's machine with the user's rights, so a profile must opt in with `terminal.enabled: true`.
 */
import { isAbsolute } from 'node:path'
import { readSection, type RawConfig } from '../config'

export interface TerminalSettings {
  enabled: boolean
  /** Absolute working directory for commands; null = the profile home. */
  cwd: string | null
}

export function terminalSettings(raw: RawConfig | null | undefined): TerminalSettings {
  const t = readSection(raw, 'terminal')
  const cwd = typeof t.cwd === 'string' && t.cwd.trim() && isAbsolute(t.cwd.trim()) ? t.cwd.trim() : null
  // Strictly `true`: a typo'd `enabled: "yes"` must not switch shell access on.
  return { enabled: t.enabled === true, cwd }
}
