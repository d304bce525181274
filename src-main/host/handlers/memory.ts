import { editEntry, memoryFileProblem, readEntries, type MemoryActivityHub } from '../../memory'
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
      return { profile, target, entries: readEntries(home, target), ...(readOnly ? { readOnly } : {}) }
    },
    'memory.edit': async (edit) => {
      const started = performance.now()
      const entries = await editEntry(s.homeOf(edit.profile), edit)
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
      return { profile: edit.profile, target: edit.target, entries }
    },
    'memory.health': ({ profile }) => {
      knownScope(profile)
      return { items: hub.health(profile) }
    }
  }
}
