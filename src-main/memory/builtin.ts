/**
 * Built-in memory provider: the `memory` tool plus a system-prompt block with the profile's entries.
 * The block is a snapshot taken at initialize (and at a session switch) rather than re-read every turn,
 * so the system prompt stays byte-stable within a session and provider prefix caches keep hitting;
 * writes land on disk at once and show up in the next session's prompt. An entry that looks like an injection
 * reaches the prompt as a [BLOCKED: …] notice instead (promptEntries), and the header's usage counts what the
 * prompt carries, as upstream's does.
 */
import { MEMORY_TARGETS, memoryFileName, memoryFileTrouble, readEntries, type MemoryTarget } from './builtin-store'
import { DEFAULT_MEMORY_LIMITS, ENTRY_DELIMITER, promptEntries, usageOf, type MemoryLimits } from './builtin-limits'
import { MEMORY_TOOL_NAME, MEMORY_TOOL_SCHEMA, runMemoryTool, type FailureCount } from './builtin-tool'
import {
  BUILTIN_PROVIDER_NAME,
  MemoryProvider,
  type InitializeOptions,
  type MemoryToolSchema,
  type ToolCallKwargs
} from './provider'

export interface BuiltinMemoryOptions {
  /** config.yaml's `memory.memory_char_limit` / `user_char_limit` (memoryLimitsOf); upstream's defaults otherwise. */
  limits?: Partial<MemoryLimits>
  /** Include MEMORY.md in the prompt (upstream `memory.memory_enabled`). */
  memoryEnabled?: boolean
  /** Include USER.md in the prompt (upstream `memory.user_profile_enabled`). */
  userProfileEnabled?: boolean
}

const HEADERS: Record<MemoryTarget, string> = {
  memory: 'MEMORY (your personal notes)',
  user: 'USER PROFILE (who the user is)'
}
const RULE = '═'.repeat(46)

export class BuiltinMemoryProvider extends MemoryProvider {
  readonly name = BUILTIN_PROVIDER_NAME
  private home: string | null = null
  /** The session the tool writes for, named in a write it stages for approval. */
  private sessionId: string | undefined
  private snapshot: Record<MemoryTarget, string[]> = { memory: [], user: [] }
  private readonly limits: MemoryLimits
  /** Consolidation refusals in the current turn (the tool's per-turn cap). */
  private readonly failures: FailureCount = { n: 0 }
  private readonly memoryEnabled: boolean
  private readonly userProfileEnabled: boolean

  constructor(options: BuiltinMemoryOptions = {}) {
    super()
    this.limits = { ...DEFAULT_MEMORY_LIMITS, ...options.limits }
    this.memoryEnabled = options.memoryEnabled ?? true
    this.userProfileEnabled = options.userProfileEnabled ?? true
  }

  /** Home bound at initialize. */
  get boundHome(): string | null {
    return this.home
  }

  isAvailable(): boolean {
    return true
  }

  initialize(sessionId: string, options: InitializeOptions): void {
    this.sessionId = sessionId
    this.home = options.hermesHome
    this.snapshot = { memory: [], user: [] }
    this.refreshSnapshot()
  }

  getToolSchemas(): MemoryToolSchema[] {
    return [MEMORY_TOOL_SCHEMA]
  }

  async handleToolCall(toolName: string, args: Record<string, unknown>, _kwargs?: ToolCallKwargs): Promise<string> {
    if (toolName !== MEMORY_TOOL_NAME) return JSON.stringify({ success: false, error: `unknown tool '${toolName}'` })
    if (!this.home) return JSON.stringify({ success: false, error: 'memory is not initialized for this profile' })
    return runMemoryTool(this.home, args, this.limits, this.failures, this.sessionId)
  }

  onTurnStart(): void {
    this.failures.n = 0
  }

  systemPromptBlock(): string {
    // Only the enabled files reach the prompt; the tool still takes both targets, as upstream's store does
    // whenever either flag is on.
    const targets = MEMORY_TARGETS.filter((t) => (t === 'user' ? this.userProfileEnabled : this.memoryEnabled))
    return targets
      .filter((t) => this.snapshot[t].length > 0)
      .map((t) => {
        const entries = promptEntries(this.snapshot[t], memoryFileName(t))
        return `${RULE}\n${HEADERS[t]} [${usageOf(entries, this.limits[t])}]\n${RULE}\n${entries.join(ENTRY_DELIMITER)}`
      })
      .join('\n\n')
  }

  onSessionSwitch(): void {
    this.refreshSnapshot()
  }

  private refreshSnapshot(): void {
    if (!this.home) return
    const home = this.home
    // Upstream reads both files before it takes its snapshot, and a file that is not UTF-8 raises there: neither
    // file reaches the prompt (none at start, the previous snapshot at a refresh), never one decoded with U+FFFD
    // in place of the bytes it could not read. The Memory page shows the file read-only with why.
    if (MEMORY_TARGETS.some((t) => memoryFileTrouble(home, t)?.kind === 'not-utf8')) return
    // A file that cannot be read at all (a folder in its place) is read as empty, as upstream's read takes it, at
    // start and at a refresh alike: its old entries do not linger in the prompt.
    for (const t of MEMORY_TARGETS) this.snapshot[t] = readEntries(home, t)
  }
}
