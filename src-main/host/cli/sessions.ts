// `caduceus sessions list|show|search|…`: one-shot reads and admin through the same dispatcher the app uses.
import type { HostArgs } from './args'
import { createHost } from '../compose'
import { formatProblems, formatSessionList, formatSessionShow, formatSearch } from './format'
import { sessionAdminCli } from './sessions-admin'
import { call } from './call'
import { helpFor } from './usage'
import { impliedProfile } from './profile'
import { UsageError } from './run-args'

/** The verbs `caduceus sessions` answers (checked before a host is built for one). */
const VERBS = new Set([
  'list',
  'show',
  'search',
  'export',
  'import',
  'delete',
  'rename',
  'stats',
  'prune',
  'archive',
  'optimize',
  'repair'
])

/** The most rows one `sessions.list` request returns (its contract's bound). */
const LIST_PAGE = 500

/** Problems go to stderr; a profile left out makes the exit code 1 (as `ls` does for an unreadable folder). */
function problems(r: Parameters<typeof formatProblems>[0]): number {
  for (const line of formatProblems(r)) console.error(line)
  return r.unavailable?.length ? 1 : 0
}

export async function sessions(args: HostArgs): Promise<number> {
  const [, sub, arg] = args.positionals
  // `hermes sessions` with no verb prints its help and exits 0
  if (sub === undefined) {
    console.log(helpFor(['sessions']))
    return 0
  }
  if (sub === 'browse')
    throw new UsageError(
      "sessions browse is upstream's interactive picker; here: caduceus sessions list or sessions search TEXT, then sessions show ID (or the app's Sessions page)"
    )
  if (!VERBS.has(sub)) throw new UsageError(`unknown sessions verb '${sub}'\n\n${helpFor(['sessions'])}`)
  // No --profile: the one upstream's CLI would act on (profile.ts), else every profile for list and search.
  args = { ...args, profile: args.profile ?? impliedProfile(args.home) }
  // On the file itself, before any host opens it (repair's case is a file the store may not open).
  if (sub === 'optimize' || sub === 'repair') return (await import('./sessions-maintenance')).maintenance(sub, args)
  const host = await createHost({ home: args.home, demo: false, headless: true, live: false })
  try {
    const out = (v: unknown, text: () => string) => console.log(args.json ? JSON.stringify(v, null, 2) : text())
    if (sub === 'list') {
      // upstream's `hermes sessions list [--source S]`: sessions no person had (kanban, tool, oneshot) only when asked
      // for by --source (the list's default, store/read-list.ts). Rows come most recently ACTIVE first, as upstream's dashboard and in-app console list them; its
      // terminal CLI alone lists newest-started first under a "Last Active" column (scripts/golden/list_cli.py).
      const source = typeof args.prune?.source === 'string' ? args.prune.source : undefined
      // --limit as upstream's SQL LIMIT reads it: 20 by default, 0 lists nothing, a negative number everything; more
      // than one request's page is read page by page
      const want = args.limit ?? 20
      const items: Array<(typeof page)['items'][number]> = []
      let page = await call(host, 'sessions.list', {
        profile: args.profile ?? 'all',
        limit: want > 0 ? Math.min(want, LIST_PAGE) : LIST_PAGE,
        includeChildren: args.children,
        ...(source ? { sources: [source] } : {})
      })
      for (;;) {
        items.push(...page.items)
        if (!page.nextCursor || (want >= 0 && items.length >= want)) break
        page = await call(host, 'sessions.list', {
          profile: args.profile ?? 'all',
          limit: want > 0 ? Math.min(want - items.length, LIST_PAGE) : LIST_PAGE,
          includeChildren: args.children,
          cursor: page.nextCursor,
          ...(source ? { sources: [source] } : {})
        })
      }
      page = { ...page, items: want >= 0 ? items.slice(0, want) : items }
      // --workspace: as upstream's, the rows of that page whose workspace (git repo root, else cwd) contains the
      // needle, case ignored — a filter on the listed rows, after --limit, as `hermes sessions list` applies it
      const needle = args.workspace?.trim().toLowerCase()
      if (needle) {
        const keys = new Map<string, Map<string, string>>()
        const keyOf = (p: string, id: string) => {
          if (!keys.has(p))
            keys.set(p, host.stores.get(p).workspacesOf(page.items.filter((i) => i.profile === p).map((i) => i.id)))
          return keys.get(p)!.get(id)?.toLowerCase()
        }
        page.items = page.items.filter((i) => keyOf(i.profile, i.id)?.includes(needle))
      }
      out(page, () => formatSessionList(page.items))
      return problems(page)
    } else if (sub === 'show') {
      if (!arg) throw new UsageError('sessions show needs a session id')
      const profile = args.profile ?? 'default'
      const detail = await call(host, 'sessions.get', { profile, sessionId: arg })
      const messages = await call(host, 'sessions.messages', { profile, sessionId: arg, limit: args.limit ?? 1000 })
      out({ ...detail, messages: messages.items }, () => formatSessionShow(detail, messages.items))
    } else if (sub === 'search') {
      if (!arg) throw new UsageError('sessions search needs the text to search for')
      const result = await call(host, 'sessions.search', {
        profile: args.profile ?? 'all',
        query: arg,
        limit: args.limit ?? 20,
        // as the list (and the app's search) shows them: child sessions only with --children
        includeChildren: args.children
      })
      // a malformed query's explanation is the answer; which terms were not a word search, a note beside it
      out(result, () => (result.hits.length || !result.message ? formatSearch(result.hits) : result.message))
      if (result.fallback && !args.json) console.error(`caduceus: ${result.fallback}`)
      return problems(result)
    } else {
      const code = await sessionAdminCli(host, sub, arg, args)
      if (code !== null) return code
      console.error(helpFor(['sessions']))
      return 2
    }
    return 0
  } finally {
    await host.close()
  }
}
