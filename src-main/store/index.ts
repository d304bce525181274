/**
 * store/ — one `state.db` per profile (upstream Hermes schema, reconciled additively), sessions, messages,
 * FTS, lineage, usage, read models returning contract DTOs, the cross-process watcher and the demo home.
 *
 * Change notification (how `sessions.changed` is produced):
 * - `SessionWatcher` (one per store) owns a dedicated read connection. `PRAGMA data_version` on it changes
 *   after ANY other connection's commit — other processes AND this process's own `SessionStore` writer —
 *   so one watcher covers both. It also subscribes to `store.onLocalChange`, which makes own writes wake
 *   it immediately instead of waiting for the file watch. Its callback fires once per coalesced burst with
 *   the session ids whose visible state changed (no-op writes emit nothing). The host should subscribe to
 *   the watcher only and emit `sessions.changed` from it.
 * - `store.onLocalChange(fn)` reports the ids each committed write of this process touched (after COMMIT,
 *   never after rollback), synchronously. Use it for in-process bookkeeping; don't also emit events
 *   from it, or own writes would be announced twice.
 * - SQL on state.db lives only in this folder: other subsystems call typed repositories (`delegationRepo`,
 *   `costRepo`, `memoryEventsRepo`) and run their writes inside `store.write(() => …)`; the handle is private.
 */
export { SessionStore } from './session-store'
export { setSqliteNativeBinding } from './open'
export { discoverProfiles, StoreRegistry } from './profiles'
export { SessionWatcher } from './watcher'
export { writeDemoHome } from './demo'
export type { SessionRow, CreateSessionOptions, NewMessage, ConversationMessage, UsageReport } from './types'
export { delegationRepo } from './delegation-repo'
export { costRepo } from './cost-repo'
export { memoryEventsRepo } from './memory-events-repo'
