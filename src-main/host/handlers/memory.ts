import {
  editEntry,
  memoryFileProblem,
  memoryUsage,
  pendingMemoryWrites,
  readEntries,
  type MemoryActivityHub
} from '../../memory'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'

type MemoryHandlers = Pick<HandlerMap, 'memory.events' | 'memory.entries' | 'memory.edit' | 'memory.health'>

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
      const home = s.homeOf(profile)
      const readOnly = memoryFileProblem(home, target)
      const entries = readEntries(home, target)
      // counted as the memory tool counts it against its limit, so the page and the tool never disagree
      const usage = memoryUsage(home, target, entries)
      const pending = pendingMemoryWrites(home)
      return { profile, target, entries, usage, ...(readOnly ? { readOnly } : {}), ...(pending ? { pending } : {}) }
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
    'memory.health': ({ profile }) => {
      knownScope(profile)
      return { items: hub.health(profile) }
    }
  }
}
