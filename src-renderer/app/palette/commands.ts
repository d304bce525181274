/**
 * What the command palette offers and how it ranks. Matching is fuzzy (Fuse.js, each typed word on its own, all
 * of them required): "lisbn trp" finds "Lisbon trip". Sessions match on title, first message, id and date.
 * Order for a query: pages, then actions whose label starts with it, then sessions, then the rest; so Enter on a
 * partial page name opens the page and a stray match never makes Enter start a chat or switch a profile.
 */
import Fuse from 'fuse.js'
import type { SessionSummary } from '@shared/contract'
import { sessionLabel } from '../../lib/session-label'
import { NAV, sessionHref, type Route } from '../routes'

export interface Command {
  id: string
  group: 'Pages' | 'Actions' | 'Sessions'
  label: string
  hint?: string
  /** Sessions: when it was last active ("2026-12-04 14:03"), shown on the row and matched. */
  date?: string
  /** Sessions: the id, shown short and matched whole. */
  sessionId?: string
  /** Sessions: the first user message, matched. */
  preview?: string
  /** Sessions: the date as it may be typed ("2026-12-04 14:03 Dec 4"), matched. */
  when?: string
  run: () => void
}

export interface CommandContext {
  route: Route
  profiles: string[]
  sessions: SessionSummary[]
  navigate: (hash: string) => void
  setScope: (scope: string) => void
  cycleTheme: () => void
  searchMessages: (q: string) => void
  focusComposer: () => void
}

const pad = (n: number) => String(n).padStart(2, '0')
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** Local "YYYY-MM-DD HH:MM": sortable, unambiguous in every locale, and what a typed date matches. */
function paletteDate(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000)
  if (Number.isNaN(d.getTime())) return ''
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** The date as typed words too ("Dec 4"), so both "2026-12-04" and "dec 4" find it. */
function dateWords(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000)
  return Number.isNaN(d.getTime()) ? '' : `${paletteDate(epochSeconds)} ${MONTHS[d.getMonth()]} ${d.getDate()}`
}

function allCommands(ctx: CommandContext, q: string): Command[] {
  const out: Command[] = []
  for (const n of NAV)
    out.push({
      id: `page:${n.page}`,
      group: 'Pages',
      label: n.label,
      hint: `g ${n.key}`,
      run: () => ctx.navigate(`#/${n.page}`)
    })
  if (ctx.route.page === 'session') {
    const { profile, sessionId } = ctx.route
    out.push({
      id: 'act:followup',
      group: 'Actions',
      label: 'Follow up in this session',
      hint: 'resume',
      run: ctx.focusComposer
    })
    out.push({
      id: 'act:leave',
      group: 'Actions',
      label: 'Leave session',
      hint: 'Esc',
      run: () => ctx.navigate('#/sessions')
    })
    out.push({
      id: 'act:details',
      group: 'Actions',
      label: 'Copy session link',
      run: () =>
        void navigator.clipboard
          ?.writeText(location.origin + location.pathname + sessionHref(profile, sessionId))
          .catch(() => {})
    })
  }
  for (const p of ctx.profiles)
    out.push({
      id: `act:new:${p}`,
      group: 'Actions',
      label: `New chat in ${p}`,
      run: () => ctx.navigate(`#/new/${encodeURIComponent(p)}`)
    })
  for (const p of ['all', ...ctx.profiles])
    out.push({
      id: `act:scope:${p}`,
      group: 'Actions',
      label: `Switch profile: ${p === 'all' ? 'All profiles' : p}`,
      run: () => ctx.setScope(p)
    })
  out.push({
    id: 'act:theme',
    group: 'Actions',
    label: 'Toggle theme',
    hint: 'system → light → dark',
    run: ctx.cycleTheme
  })
  if (q)
    out.push({
      id: 'act:search',
      group: 'Actions',
      label: `Search messages for “${q}”`,
      hint: 'full text',
      run: () => ctx.searchMessages(q)
    })
  for (const s of ctx.sessions)
    out.push({
      id: `session:${s.profile}/${s.id}`,
      group: 'Sessions',
      label: sessionLabel({ title: s.title, preview: s.preview, at: s.lastActiveAt }),
      hint: s.profile,
      date: paletteDate(s.lastActiveAt),
      sessionId: s.id,
      preview: s.preview ?? undefined,
      when: dateWords(s.lastActiveAt),
      run: () => ctx.navigate(sessionHref(s.profile, s.id))
    })
  return out
}

const SESSIONS_SHOWN = 30

const fuzzy = (items: Command[]) =>
  new Fuse(items, {
    keys: [
      { name: 'label', weight: 3 },
      { name: 'preview', weight: 1 },
      { name: 'sessionId', weight: 1 },
      { name: 'when', weight: 1 }
    ],
    includeScore: true,
    ignoreLocation: true,
    useTokenSearch: true,
    tokenMatch: 'all',
    threshold: 0.4
  })

export function buildCommands(ctx: CommandContext, query: string): Command[] {
  const q = query.trim()
  const all = allCommands(ctx, q)
  if (!q) {
    // no query: pages, the few everyday actions, then the most recent sessions
    const head = all.filter(
      (c) =>
        c.group === 'Pages' ||
        c.id === 'act:theme' ||
        c.id.startsWith('act:new') ||
        c.id === 'act:followup' ||
        c.id === 'act:leave'
    )
    return [...head, ...all.filter((c) => c.group === 'Sessions').slice(0, SESSIONS_SHOWN)]
  }
  const search = all.find((c) => c.id === 'act:search')!
  const hits = fuzzy(all.filter((c) => c !== search))
    .search(q)
    .map((r) => r.item)
  const lower = q.toLowerCase()
  const pages = hits.filter((c) => c.group === 'Pages')
  // an action comes early only when its label begins with what was typed ("new", "toggle"): never by a loose match
  const named = hits.filter((c) => c.group === 'Actions' && c.label.toLowerCase().startsWith(lower))
  // a fuzzy match ranks "2026-12-01" as close to "2026-12-02" as the day itself: rows holding every typed word
  // exactly come first, in Fuse's order
  const words = lower.split(/\s+/)
  const exact = (c: Command) => {
    const text = [c.label, c.preview, c.sessionId, c.when].join(' ').toLowerCase()
    return words.every((w) => text.includes(w))
  }
  const found = hits.filter((c) => c.group === 'Sessions')
  const sessions = [...found.filter(exact), ...found.filter((c) => !exact(c))].slice(0, SESSIONS_SHOWN)
  const rest = hits.filter((c) => c.group === 'Actions' && !named.includes(c))
  return [...pages, ...named, ...sessions, search, ...rest]
}
