/** Shapes shared by the process registry, the terminal/process tools and the host's completion delivery. */
export type ProcessStatus = 'running' | 'exited' | 'killed'

/** Where a gateway platform should post a completion notice (hermes `pending_watchers` entry). */
export interface PendingWatcher {
  processId: string
  sessionId: string
  sessionKey: string
  platform: string
  chatId: string
  threadId: string
  userId: string
  profile: string
}

export interface StartProcessInput {
  command: string
  cwd: string
  profile: string
  sessionId: string
  /** Deliver a completion (callback) when the process exits by itself. */
  notify: boolean
  /** Register a pending watcher (only when a platform is bound and async delivery is supported). */
  watcher?: Omit<PendingWatcher, 'processId'> | null
  /** Values masked in the completion's output tail (the calling profile's keys). Kept in memory only. */
  secrets?: string[]
}

export interface ProcessSnapshot {
  id: string
  command: string
  cwd: string
  profile: string
  sessionId: string
  pid: number | null
  status: ProcessStatus
  exitCode: number | null
  signal: string | null
  startedAt: number
  endedAt: number | null
  notify: boolean
  output: string
  truncated: boolean
  error?: string
}

/** Handed to the host when a notify-enabled process exits by itself. `outputTail` is already redacted. */
export interface ProcessCompletion {
  profile: string
  sessionId: string
  processId: string
  command: string
  exitCode: number | null
  signal: string | null
  outputTail: string
}
