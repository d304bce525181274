import type {
  CallResult,
  EventEnvelope,
  EventName,
  EventPayload,
  RequestInput,
  RequestName,
  RequestOutput,
  Transport
} from '@shared/contract'
import { makeMessages, makeSessions, makeSubagents, money, tok } from './fake-data'

/**
 * In-memory host for `?fake=1`: enough of every request to develop and screenshot the UI without a host.
 * A resume streams a short scripted reply as turn.* events.
 */
export function createFakeTransport(): Transport {
  const sessions = makeSessions()
  const subagents = makeSubagents()
  const transcripts = new Map<string, ReturnType<typeof makeMessages>>()
  const listeners = new Set<(e: EventEnvelope) => void>()
  const entries: Record<string, string[]> = {
    default: ['User prefers concise answers.', 'Project uses pnpm and vitest.'],
    work: ['On-call rota: Tuesdays.']
  }
  let turnN = 0
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const l of listeners) l({ event, payload })
  }
  const msgs = (id: string) => {
    if (!transcripts.has(id))
      transcripts.set(id, makeMessages(id, sessions.find((s) => s.id === id)?.messageCount ?? 12))
    return transcripts.get(id)!
  }
  const find = (profile: string, id: string) => sessions.find((s) => s.profile === profile && s.id === id)

  const handlers: { [K in RequestName]?: (i: RequestInput<K>) => RequestOutput<K> } = {
    'app.info': () => ({
      version: '0.1.0',
      root: '~/.hermes',
      headless: true,
      demo: true,
      logCommand: 'caduceus logs',
      profiles: handlers['profiles.list']!({})
    }),
    'profiles.list': () =>
      ['default', 'work'].map((name) => ({
        name,
        home: `~/.hermes/${name}`,
        isDefault: name === 'default',
        sessionCount: sessions.filter((s) => s.profile === name).length
      })),
    'sessions.list': (q) => {
      let rows = sessions.filter(
        (s) =>
          (q.profile === 'all' || !q.profile || s.profile === q.profile) &&
          (q.archived === 'include' || (q.archived === 'only' ? s.archived : !s.archived))
      )
      if (q.sources?.length) rows = rows.filter((s) => q.sources!.includes(s.source))
      if (q.idPrefix) rows = rows.filter((s) => s.id.startsWith(q.idPrefix!))
      const start = q.cursor ? Number(q.cursor) : 0
      const limit = q.limit ?? 100
      return {
        items: rows.slice(start, start + limit),
        nextCursor: start + limit < rows.length ? String(start + limit) : null
      }
    },
    'sessions.get': ({ profile, sessionId }) => {
      const s = find(profile, sessionId) ?? { ...sessions[0]!, id: sessionId, profile }
      const ref = (id: string, kind: 'root' | 'continuation' | 'delegate') => ({
        id,
        title: null,
        kind,
        startedAt: s.startedAt,
        endReason: kind === 'root' ? 'compression' : null,
        messageCount: 20
      })
      return {
        summary: s,
        lineage: {
          chain:
            s.chainLength > 1
              ? [
                  ref(`${s.id}_a`, 'root'),
                  ref(`${s.id}_b`, 'continuation'),
                  { ...ref(s.id, 'continuation'), title: s.title }
                ]
              : [ref(s.id, 'root')],
          parent: null,
          branches: [],
          delegateChildren: s.childCount ? [ref('child_1', 'delegate')] : []
        },
        usage: [
          {
            model: s.model ?? 'gpt-5-mini',
            provider: 'openrouter',
            task: 'main',
            apiCalls: 12,
            tokens: s.tokens,
            cost: s.cost
          }
        ],
        cwd: '/home/me/src/caduceus',
        gitBranch: 'main',
        apiCallCount: 12
      }
    },
    'sessions.messages': (q) => {
      const all = msgs(q.sessionId)
      const limit = q.limit ?? 200
      let items =
        q.afterId != null
          ? all.filter((m) => m.id > q.afterId!).slice(0, limit)
          : q.beforeId != null
            ? all.filter((m) => m.id < q.beforeId!).slice(-limit)
            : all.slice(0, limit)
      if (q.aroundId != null) {
        const i = all.findIndex((m) => m.id >= q.aroundId!)
        items = all.slice(Math.max(0, i - limit / 2), i + limit / 2)
      }
      const first = items[0]?.id ?? 0,
        last = items.at(-1)?.id ?? 0
      return {
        items,
        hasMoreBefore: items.length > 0 && all.some((m) => m.id < first),
        hasMoreAfter: items.length > 0 && all.some((m) => m.id > last)
      }
    },
    'sessions.search': ({ query }) => ({
      hits: sessions.slice(0, 12).map((s, i) => ({
        profile: s.profile,
        sessionId: s.id,
        sessionTitle: s.title,
        messageId: 1 + i * 4,
        role: 'user',
        timestamp: s.lastActiveAt,
        snippet: [
          { text: '…can you check the ', hit: false },
          { text: query, hit: true },
          { text: ' tests and explain…', hit: false }
        ]
      }))
    }),
    'sessions.update': (u) => {
      const s = find(u.profile, u.sessionId)!
      Object.assign(s, {
        ...(u.archived != null ? { archived: u.archived } : {}),
        ...(u.title !== undefined ? { title: u.title } : {})
      })
      return s
    },
    'sessions.resume': ({ profile, sessionId, text }) => {
      const turnId = `turn-${++turnN}`
      script(profile, sessionId, turnId, text)
      return { turnId, profile, sessionId }
    },
    'sessions.start': ({ profile, text }) => {
      const id = `20261202_new${turnN}`
      sessions.unshift({
        ...sessions[0]!,
        id,
        profile,
        title: null,
        preview: text,
        messageCount: 0,
        lastActiveAt: Math.floor(Date.now() / 1000),
        chainLength: 1,
        childCount: 0
      })
      transcripts.set(id, [])
      const turnId = `turn-${++turnN}`
      script(profile, id, turnId, text)
      return { turnId, profile, sessionId: id }
    },
    'turns.stop': () => ({ ok: true }),
    'gateway.state': () => ({
      cap: 8,
      idleTtlSeconds: 3600,
      agents: sessions.slice(0, 3).map((s, i) => ({
        key: `agent:${s.id}`,
        profile: s.profile,
        sessionId: s.id,
        model: s.model,
        signature: `9f3a${i}c1d2e3f4`,
        running: i === 0,
        idleSeconds: i * 420,
        turns: 3 + i,
        messageCountSnapshot: s.messageCount
      }))
    }),
    'gateway.evict': () => ({ evicted: true }),
    'channels.status': () => ({
      deskChat: { platform: 'desktop', asyncDelivery: true },
      apiServer: {
        platform: 'api_server',
        asyncDelivery: false,
        running: false,
        url: null,
        profile: null,
        keySet: false,
        requests: 0,
        error: null
      },
      cron: {
        platform: 'cron',
        asyncDelivery: false,
        enabled: true,
        standingDown: [],
        jobsDue: 0,
        jobsTotal: 0,
        running: 0,
        lastTickAt: null
      }
    }),
    'cron.list': () => ({ jobs: [] }),
    'settings.get': ({ profile }) => ({
      profile,
      provider: 'openrouter',
      baseUrl: 'https://openrouter.ai/api/v1',
      model: 'gpt-5-mini',
      apiMode: 'chat_completions',
      apiKeySet: profile === 'default',
      apiKeyStorage: profile === 'default' ? 'env_file' : 'none',
      maxIterations: 60,
      compressionThreshold: 0.5,
      demo: true
    }),
    'settings.update': (u) => ({
      ...handlers['settings.get']!({ profile: u.profile }),
      ...Object.fromEntries(Object.entries(u).filter(([k]) => k !== 'apiKey')),
      apiKeySet: u.apiKey ? true : u.apiKey === '' ? false : u.profile === 'default'
    }),
    'subagents.list': (q) => ({
      items: subagents.filter(
        (s) =>
          (q.includeTombstoned || s.state !== 'tombstoned') &&
          (!q.parentSessionId || s.parentSessionId === q.parentSessionId) &&
          (q.profile === 'all' || !q.profile || s.profile === q.profile)
      ),
      maxRetained: 8,
      ttlHours: 24
    }),
    'subagents.estimate': ({ childId }) => {
      const s = subagents.find((x) => x.childId === childId)!
      return {
        messages: s.transcriptMessages,
        chars: s.transcriptChars,
        estTokens: Math.round(s.transcriptChars / 4),
        estCost: money((s.transcriptChars / 4 / 1e6) * 0.4)
      }
    },
    'subagents.followUp': ({ childId }) => ({
      mode: 'follow_up',
      childId,
      childSessionId: `child_${childId}`,
      summary: 'ok'
    }),
    'subagents.setSpawnPaused': ({ paused }) => ({ paused }),
    'subagents.tombstone': ({ childId }) => {
      const s = subagents.find((x) => x.childId === childId)!
      s.state = 'tombstoned'
      return { tombstoned: true }
    },
    'costs.session': ({ profile, sessionId }) => ({
      profile,
      sessionId,
      own: money(1.24),
      children: [
        {
          childSessionId: 'child_1',
          parentTurnId: 'turn-a',
          status: 'completed',
          apiCalls: 4,
          cost: money(0.31),
          tokens: tok(9000, 400),
          createdAt: 0
        }
      ],
      childrenTotal: money(0.31),
      inclusive: money(1.55),
      perModel: [{ model: 'gpt-5-mini', cost: money(1.24), tokens: tok(40000, 2000) }],
      perTurn: [{ turnId: 'turn-a', childrenCost: money(0.31) }]
    }),
    'costs.summary': ({ days = 30 }) => ({
      profiles: [
        { profile: 'default', own: money(12.4), children: money(3.1), inclusive: money(15.5), sessions: 220 },
        {
          profile: 'work',
          own: money(4.2, 'partial'),
          children: money(0.9),
          inclusive: money(5.1, 'partial'),
          sessions: 120
        }
      ],
      total: money(20.6, 'partial'),
      byModel: [
        { model: 'claude-sonnet-4', cost: money(14.2), tokens: tok(2_400_000, 120_000) },
        { model: 'gpt-5-mini', cost: money(6.4), tokens: tok(900_000, 80_000) },
        { model: 'local/qwen', cost: money(null, 'unpriced'), tokens: tok(50_000, 9_000) }
      ],
      byDay: Array.from({ length: days }, (_, i) =>
        ['default', 'work'].map((p) => ({
          day: new Date(Date.now() - (days - 1 - i) * 864e5).toISOString().slice(0, 10),
          profile: p,
          usd: ((i * (p === 'work' ? 7 : 13)) % 17) / 10,
          unpriced: i % 9 === 0
        }))
      ).flat(),
      tokensByDay: Array.from({ length: days }, (_, i) => ({
        day: new Date(Date.now() - (days - 1 - i) * 864e5).toISOString().slice(0, 10),
        profile: 'default',
        tokens: {
          ...tok(40_000 + ((i * 7919) % 30_000), 3_000 + ((i * 131) % 2_000)),
          cacheRead: 20_000,
          cacheWrite: 4_000
        }
      })),
      topSessions: sessions
        .slice(0, 8)
        .map((s) => ({ profile: s.profile, sessionId: s.id, title: s.title, own: s.cost, inclusive: s.cost }))
    }),
    'memory.events': () => ({
      items: Array.from({ length: 60 }, (_, i) => ({
        id: 60 - i,
        profile: i % 3 ? 'default' : 'work',
        provider: i % 4 ? 'builtin' : 'honcho',
        kind: (['prefetch', 'sync', 'write', 'tool_call', 'refusal', 'hook'] as const)[i % 6]!,
        name: ['prefetch', 'sync_turn', 'memory', 'memory', 'memory', 'on_session_end'][i % 6]!,
        sessionId: sessions[i % 10]!.id,
        turnId: null,
        ok: i % 6 !== 4,
        latencyMs: 5 + ((i * 7) % 90),
        summary: i % 6 === 4 ? 'refused: write targets another profile' : `recalled ${i % 5} facts about the parser`,
        size: 120 + i,
        at: Math.floor(Date.now() / 1000) - i * 300
      }))
    }),
    'memory.entries': ({ profile, target }) => ({
      profile,
      target: target ?? 'memory',
      entries: target === 'user' ? ['Name: Sam'] : (entries[profile] ?? [])
    }),
    'memory.edit': (e) => {
      const list = (entries[e.profile] ??= [])
      if (e.op === 'add') list.push(e.content)
      else if (e.op === 'replace') list[e.index] = e.content
      else list.splice(e.index, 1)
      return { profile: e.profile, target: e.target, entries: [...list] }
    },
    'memory.health': () => ({
      items: [
        {
          profile: 'default',
          provider: 'builtin',
          calls: 412,
          errors: 0,
          refusals: 1,
          lastError: null,
          lastErrorAt: null,
          p95LatencyMs: 4
        },
        {
          profile: 'default',
          provider: 'honcho',
          calls: 88,
          errors: 3,
          refusals: 0,
          lastError: 'timeout after 5000ms',
          lastErrorAt: Math.floor(Date.now() / 1000) - 900,
          p95LatencyMs: 870
        }
      ]
    }),
    'memory.providers': ({ profile }) => ({
      profile,
      configured: null,
      lastLoad: null,
      choices: [
        { name: 'holographic', kind: 'builtin', description: 'Local fact store' },
        { name: 'honcho', kind: 'unsupported', description: 'Upstream plugin, not supported by Caduceus.' }
      ]
    }),
    'memory.setProvider': ({ profile, provider }) => ({
      profile,
      configured: provider,
      lastLoad: null,
      choices: [{ name: 'holographic', kind: 'builtin', description: 'Local fact store' }]
    })
  }

  function script(profile: string, sessionId: string, turnId: string, text: string) {
    const h = { turnId, profile, sessionId }
    const list = msgs(sessionId)
    const save = (role: string, content: string) => {
      const id = (list.at(-1)?.id ?? 0) + 1
      list.push({
        id,
        sessionId,
        role,
        content,
        toolCalls: null,
        toolCallId: null,
        toolName: null,
        reasoning: null,
        timestamp: Math.floor(Date.now() / 1000),
        tokenCount: null,
        finishReason: 'stop',
        displayKind: null
      })
      emit('turn.delta', { ...h, kind: 'message_saved', messageId: id })
    }
    const words =
      `Sure — looking at "${text.slice(0, 40)}". The parser test fails because the tokenizer drops the final newline.`.split(
        ' '
      )
    setTimeout(() => {
      emit('turn.started', { ...h, cache: turnN % 2 ? 'reused' : 'config_changed', model: 'demo', demo: true })
      save('user', text)
    }, 50)
    words.forEach((w, i) => setTimeout(() => emit('turn.delta', { ...h, kind: 'text', text: `${w} ` }), 120 + i * 60))
    setTimeout(
      () => {
        save('assistant', words.join(' '))
        emit('turn.finished', { ...h, status: 'completed', tokens: tok(1200, 80), cost: money(0.002), apiCalls: 1 })
        emit('sessions.changed', { profile, sessionIds: [sessionId] })
      },
      200 + words.length * 60
    )
  }

  return {
    async invoke(name, input): Promise<CallResult> {
      const h = handlers[name as RequestName] as ((i: unknown) => unknown) | undefined
      if (!h) return { ok: false, error: { code: 'unknown_request', message: `fake host has no ${name}` } }
      try {
        return { ok: true, output: structuredClone(h(input ?? {})) }
      } catch (err) {
        return { ok: false, error: { code: 'internal', message: (err as Error).message } }
      }
    },
    subscribe(l) {
      listeners.add(l)
      return () => {
        listeners.delete(l)
      }
    }
  }
}
