/** What a provider factory is given, and the error a failed load reports to the user. */
export interface ProviderContext {
  /** The profile's home (plugin folder, `$HERMES_HOME`, `.env`). */
  home: string
  /** The Hermes root (its `caduceus-plugins/` is searched after the profile's). */
  root?: string
  profile: string
  /** The profile's parsed config.yaml. */
  config: Record<string, unknown> | null
  /** The profile's secrets (.env / vault). Never logged. */
  secrets: Readonly<Record<string, string>>
  /** Electron-ABI better-sqlite3 build, when the app runs one. */
  nativeBinding?: string
}

/** A load failure: `userMessage` is safe for chat surfaces (no paths), `detail` goes to the log. */
export class ProviderLoadError extends Error {
  constructor(
    readonly userMessage: string,
    readonly detail: string = userMessage
  ) {
    super(userMessage)
    this.name = 'ProviderLoadError'
  }
}
