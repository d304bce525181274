/** What the command palette offers and how it ranks: pages, then actions, then sessions by title. */
import type { SessionSummary } from '@shared/contract'
import { sessionLabel } from '../../lib/session-label'
import { NAV, sessionHref, type Route } from '../routes'

export interface Command {
  id: string
  group: 'Pages' | 'Actions' | 'Sessions'
  label: string
  hint?: string
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

const GROUP_RANK = { Pages: 0, Actions: 1, Sessions: 2 } as const

/** 0 = no match; higher is better. Prefix beats word start beats substring; pages outrank everything. */
export function score(label: string, query: string): number {
  const l = label.toLowerCase(),
    q = query.trim().toLowerCase()
  if (!q) return 1
  if (l === q) return 4
  if (l.startsWith(q)) return 3
  if (l.split(/[\s/·:—-]+/).some((w) => w.startsWith(q))) return 2
  return l.includes(q) ? 1 : 0
}

export function buildCommands(ctx: CommandContext, query: string): Command[] {
  const out: Command[] = []
  for (const n of NAV)
    out.push({
      id: `page:${n.page}`,
      group: 'Pages',
      label: n.label,
      hint: `g ${n.key}`,
      run: () => ctx.navigate(`#/${n.page}`)
    })
  const q = query.trim()
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
  for (const s of ctx.sessions) {
    const label = sessionLabel({ title: s.title, preview: s.preview, at: s.lastActiveAt })
    out.push({
      id: `session:${s.profile}/${s.id}`,
      group: 'Sessions',
      label,
      hint: s.profile,
      run: () => ctx.navigate(sessionHref(s.profile, s.id))
    })
  }
  const scored = out.map((c) => ({ c, s: c.id === 'act:search' ? 0.5 : score(c.label, q) })).filter((x) => x.s > 0)
  scored.sort((a, b) => GROUP_RANK[a.c.group] - GROUP_RANK[b.c.group] || b.s - a.s)
  // pages and actions first; a long tail of sessions is capped so the list stays quick to scan
  const head = scored.filter((x) => x.c.group !== 'Sessions').map((x) => x.c)
  const sessions = scored
    .filter((x) => x.c.group === 'Sessions')
    .sort((a, b) => b.s - a.s)
    .slice(0, 30)
    .map((x) => x.c)
  return [
    ...(q
      ? head
      : head.filter(
          (c) =>
            c.group === 'Pages' ||
            c.id === 'act:theme' ||
            c.id.startsWith('act:new') ||
            c.id === 'act:followup' ||
            c.id === 'act:leave'
        )),
    ...sessions
  ]
}
