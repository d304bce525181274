/**
 * store/ — one `state.db` per profile (upstream Hermes schema, reconciled additively), sessions, messages,
 * FTS, lineage, usage, read models returning contract DTOs, the cross-process watcher and the demo home.
 *
 * Store rules (home compatibility; mirror of ARCHITECTURE "Store rules"):
 * - Opening only reads: the file must be a database, its shape is detected (shape.ts: schema_version,
 *   usage keys, FTS layout, trigram), nothing is changed — no state.db is created, no journal-mode switch,
 *   no DDL. The first write creates a missing file (v30), switches to WAL and reconciles inside its own
 *   transaction. Reads never take the write lock; a home lacking columns is read through TEMP shadow views.
 * - A home whose schema_version is below 30 belongs to an older upstream: Caduceus adds nullable/defaulted
 *   columns to sessions/messages only; it creates or reshapes none of upstream's usage tables, FTS tables,
 *   triggers or indices and writes no state_meta key. What it needs and such a home lacks lives in `cad_`
 *   tables. Usage rows are written in the home's own key shape (update-then-insert on the detected key).
 *   The system prompt goes where the home's version reads it (system_prompts + hash, else the inline column).
 * - A schema newer than 30 is served with a notice; an unreadable profile is named in cross-profile views
 *   (`unavailable`) and never written to.
 *
 * Change notification (how `sessions.changed` is produced):
 * - `SessionWatcher` (one per store) owns a dedicated read connection. `PRAGMA data_version` on it changes
 *   after ANY other connection's commit — other processes AND this process's own `SessionStore` writer —
 *   so one watcher covers both. It also subscribes to `store.onLocalChange`, which makes own writes wake
 *   it immediately instead of waiting for the file watch. Its callback fires once per coalesced burst with
 *   the session ids whose visible state changed (no-op writes emit nothing). It compares the sessions the commits'
 *   WAL frames wrote (wal-pages.ts), or every session where the frames cannot tell. The host should subscribe to
 *   the watcher only and emit `sessions.changed` from it.
 * - `store.onLocalChange(fn)` reports the ids each committed write of this process touched (after COMMIT,
 *   never after rollback), synchronously. Use it for in-process bookkeeping; don't also emit events
 *   from it, or own writes would be announced twice.
 * - SQL on state.db lives only in this folder: other subsystems call a store's typed repositories
 *   (`store.delegationRepo()`, `costRepo()`, `memoryEventsRepo()`, `pendingNoticesRepo()`, each returning camelCase
 *   records). Their write functions take the `WriteTx` that only `store.write((tx) => …)` hands out (write-tx.ts), so
 *   a write outside the transaction does not compile. The handle is private.
 */
export { SessionStore } from './session-store'
export { readRetrying } from './read-retry'
export { isBusy } from './write-queue'
export { discoverProfiles, StoreRegistry } from './profiles'
export { SessionWatcher } from './watcher'
export { writeDemoHome } from './demo'
export { toMarkdown } from './session-transfer'
export type { SessionRecord, CreateSessionOptions, NewMessage, ConversationMessage, UsageReport } from './types'
