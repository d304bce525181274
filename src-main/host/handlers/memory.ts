import {
  editEntry,
  memoryUsage,
  decidePendingMemoryWrite,
  listPendingMemoryWrites,
  memoryEntriesView,
  type MemoryActivityHub
} from '../../memory'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'

type MemoryHandlers = Pick<
  HandlerMap,
  'memory.events' | 'memory.entries' | 'memory.edit' | 'memory.health' | 'memory.pending' | 'memory.decidePending'
>

/** Memory requests. Edits act on exactly one profile's home: the one named in the request. */
export function memoryHandlers(s: Services, hub: MemoryActivityHub): MemoryHandlers {
  // A named profile must exist (as for sessions.list): an empty feed would read as "no memory activity".
  const knownScope = (profile: string | undefined) => {
    if (profile && profile !== 'all') s.homeOf(profile)
  }
  return {
    'memory.events': (q) => {
      knownScope(q.profile)
      return { items: hub.listEvents(q) }
    },
    'memory.entries': ({ profile, target }) => {
      return { profile, ...memoryEntriesView(s.homeOf(profile), target) }
    },
    'memory.edit': async (edit) => {
      const started = performance.now()
      const home = s.homeOf(edit.profile)
      const entries = await editEntry(home, edit)
      // UI edits are memory writes too: they belong in that profile's activity feed.
      hub.get(edit.profile)?.record({
        provider: 'builtin',
        kind: 'write',
        name: `ui.${edit.op}`,
        ok: true,
        sessionId: null,
        turnId: null,
        latencyMs: performance.now() - started,
        summary: `${edit.op} ${edit.target} entry from the Memory page`,
        size: 'content' in edit ? edit.content.length : null
      })
      return { profile: edit.profile, target: edit.target, entries, usage: memoryUsage(home, edit.target, entries) }
    },
    'memory.pending': ({ profile }) => ({ items: listPendingMemoryWrites(s.homeOf(profile)) }),
    'memory.decidePending': async ({ profile, id, decision }) => {
      const started = performance.now()
      const { error } = await decidePendingMemoryWrite(s.homeOf(profile), id, decision)
      if (decision === 'reject') return { id }
      // an approved write is a memory write like the page's own edits: it belongs in that profile's feed
      hub.get(profile)?.record({
        provider: 'builtin',
        kind: 'write',
        name: 'ui.approve',
        ok: !error,
        sessionId: null,
        turnId: null,
        latencyMs: performance.now() - started,
        summary: error ? `approving staged write ${id} was refused: ${error}` : `approved staged write ${id}`,
        size: null
      })
      return error ? { id, error } : { id }
    },
    'memory.health': ({ profile }) => {
      knownScope(profile)
      return { items: hub.health(profile) }
    }
  }
}
