/**
 * Caduceus's mem0 provider against upstream's, on the homes upstream's own `hermes memory setup` writes:
 * test/fixtures/upstream/mem0/requests.json (scripts/golden/mem0_requests.py) records every request upstream's
 * provider sent to a fake Mem0 server, and every answer it gave, in platform and self-hosted mode. Here the
 * same home files and the same calls run against the same fake (a real local HTTP server) and must produce
 * the same requests and the same answers, byte for byte.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Mem0Provider } from './provider'
import { startFakeMem0, type FakeMem0 } from './test-fixtures/fake-mem0'

const FIXTURE = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../../../test/fixtures/upstream/mem0/requests.json'), 'utf8')
)
const KEY = 'm0-test-dummy-key-9876543210'

interface Step {
  call: Record<string, any>
  answer: string | null
  requests: unknown[]
}

let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanup.reverse()) await c()
  cleanup = []
})

function tmpHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cad-mem0-'))
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function fake(mode: 'platform' | 'selfhosted', key = KEY): Promise<FakeMem0> {
  const f = await startFakeMem0(key, mode)
  cleanup.push(() => f.close())
  return f
}

function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('=') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
  )
}

/** Every URL the provider fetched; the platform's host is served by the fake (nothing leaves the machine). */
function routedFetch(cloudTo: string | null, seen: string[]): typeof fetch {
  return (input, init) => {
    const url = String(input)
    seen.push(url)
    const target =
      cloudTo && url.startsWith('https://api.mem0.ai/') ? cloudTo + url.slice('https://api.mem0.ai'.length) : url
    if (!target.startsWith('http://127.0.0.1:')) throw new Error(`unexpected request to ${url}`)
    return fetch(target, init)
  }
}

const wire = (calls: FakeMem0['calls']) => calls.map(({ auth: _a, xApiKey: _x, ...rest }) => rest)

describe('mem0: the same requests and answers as upstream (golden)', () => {
  for (const mode of FIXTURE.modes as Array<Record<string, any>>) {
    it(`${mode.mode}: a home written by upstream's setup`, async () => {
      const f = await fake(mode.mode)
      const home = tmpHome()
      writeFileSync(join(home, 'config.yaml'), `memory:\n  provider: ${mode.config_provider}\n`)
      writeFileSync(join(home, 'mem0.json'), JSON.stringify(mode.mem0_json).replaceAll('{FAKE}', f.baseUrl))
      const envText = (mode.env as string).replaceAll('{KEY}', KEY)
      writeFileSync(join(home, '.env'), envText)
      const seen: string[] = []
      const p = new Mem0Provider({
        config: { memory: { provider: 'mem0' } },
        secrets: parseEnv(envText),
        home,
        env: {},
        fetch: routedFetch(mode.mode === 'platform' ? f.baseUrl : null, seen)
      })
      expect(p.isAvailable()).toBe(mode.available)
      expect(
        p.getToolSchemas().map((s) => {
          const params = s.parameters as { properties: Record<string, { type: string }>; required: string[] }
          return {
            name: s.name,
            properties: Object.fromEntries(Object.entries(params.properties).map(([k, v]) => [k, v.type])),
            required: params.required
          }
        })
      ).toEqual(mode.tool_schemas)
      for (const step of mode.steps as Step[]) {
        const start = f.calls.length
        const c = step.call
        let out: unknown
        if (c.hook === 'initialize')
          out = await p.initialize('s1', {
            hermesHome: home,
            platform: c.kwargs.platform,
            agentContext: c.kwargs.agent_context,
            agentIdentity: c.kwargs.agent_identity
          })
        else if (c.hook === 'prefetch') out = await p.prefetch(c.query)
        else if (c.hook === 'sync_turn') out = await p.syncTurn(c.user, c.assistant)
        else out = await p.handleToolCall(c.tool, c.args)
        expect({ call: c, answer: out ?? null }).toEqual({ call: c, answer: step.answer })
        expect({ call: c, requests: wire(f.calls.slice(start)) }).toEqual({ call: c, requests: step.requests })
      }
      const base = mode.base === '{FAKE}' ? f.baseUrl : mode.base
      expect(seen.every((u) => u.startsWith(`${base}/`))).toBe(true)
      await p.shutdown()
    })
  }
})

describe('mem0: settings and where the key goes', () => {
  const provider = (home: string, secrets: Record<string, string>, extra: Record<string, unknown> = {}) => {
    const seen: string[] = []
    const p = new Mem0Provider({
      config: (extra.config as Record<string, unknown>) ?? { memory: { provider: 'mem0' } },
      secrets,
      env: (extra.env as Record<string, string>) ?? {},
      fetch: routedFetch((extra.cloudTo as string) ?? null, seen)
    })
    return { p, seen }
  }
  const init = (p: Mem0Provider, home: string, userId?: string) =>
    p.initialize('s1', { hermesHome: home, platform: 'desk', ...(userId ? { userId } : {}) })

  it('a self-hosted server without auth: available, and no key header is sent', async () => {
    const f = await fake('selfhosted', '')
    const home = tmpHome()
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ mode: 'platform', host: f.baseUrl, user_id: 'alice' }))
    const { p } = provider(home, {})
    await init(p, home)
    expect(p.isAvailable()).toBe(true)
    expect(await p.handleToolCall('mem0_add', { content: 'likes jazz' })).toBe(
      '{"result": "Fact stored.", "event_id": "evt-1"}'
    )
    expect(f.calls.map((c) => [c.path, c.headers, c.body.metadata])).toEqual([['/memories', [], { channel: 'desk' }]])
  })

  it("mem0_search reads top_k with Python's int(): '2_0' is 20, '10abc' and a bool are not 10", async () => {
    const f = await fake('selfhosted', '')
    const home = tmpHome()
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ mode: 'platform', host: f.baseUrl, user_id: 'alice' }))
    const { p } = provider(home, {})
    await init(p, home)
    await p.handleToolCall('mem0_search', { query: 'jazz', top_k: '2_0' })
    await p.handleToolCall('mem0_search', { query: 'jazz', top_k: true })
    // upstream: int('10abc') raises inside its try, so the tool answers the error and sends nothing
    expect(await p.handleToolCall('mem0_search', { query: 'jazz', top_k: '10abc' })).toBe(
      `{"error": "Search failed: invalid literal for int() with base 10: '10abc'"}`
    )
    expect(f.calls.map((c) => c.body.top_k)).toEqual([20, 1])
  })

  it("upstream's files win over plugins.mem0: the key goes to mem0.json's host, never to the platform or base_url", async () => {
    const f = await fake('selfhosted')
    const other = await fake('platform')
    const home = tmpHome()
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ host: f.baseUrl, user_id: 'alice', agent_id: 'a1' }))
    const { p, seen } = provider(
      home,
      { MEM0_API_KEY: KEY },
      { config: { plugins: { mem0: { base_url: other.baseUrl, user_id: 'bob', agent_id: 'b1' } } } }
    )
    await init(p, home)
    await p.handleToolCall('mem0_add', { content: 'likes jazz' })
    await p.handleToolCall('mem0_search', { query: 'jazz' })
    expect(other.calls).toEqual([])
    expect(seen.every((u) => u.startsWith(`${f.baseUrl}/`))).toBe(true)
    expect(f.calls.map((c) => [c.xApiKey, c.auth])).toEqual([
      [KEY, undefined],
      [KEY, undefined]
    ])
    expect(f.calls[0]!.body).toMatchObject({ user_id: 'alice', agent_id: 'a1' })
    expect(f.calls[1]!.body.filters).toEqual({ user_id: 'alice' })
  })

  it('plugins.mem0 still works where upstream sets nothing: base_url is the platform API the key goes to', async () => {
    const f = await fake('platform')
    const home = tmpHome()
    const { p } = provider(
      home,
      { MEM0_API_KEY: KEY },
      { config: { plugins: { mem0: { base_url: f.baseUrl, user_id: 'ada' } } } }
    )
    await init(p, home)
    await p.syncTurn('I deploy on Fridays', 'ok')
    expect(f.calls.map((c) => [c.method, c.path, c.auth])).toEqual([
      ['GET', '/v1/ping/', `Token ${KEY}`],
      ['POST', '/v3/memories/add/', `Token ${KEY}`]
    ])
    expect(f.calls[1]!.body).toMatchObject({ user_id: 'ada', agent_id: 'hermes', infer: true })
  })

  it('MEM0_* fallbacks: the profile .env first, then the process environment; mem0.json overrides both', async () => {
    const f = await fake('selfhosted')
    const home = tmpHome()
    const { p } = provider(
      home,
      { MEM0_API_KEY: KEY, MEM0_HOST: f.baseUrl, MEM0_USER_ID: 'envuser' },
      { env: { MEM0_AGENT_ID: 'procagent', MEM0_USER_ID: 'ignored' } }
    )
    expect(p.isAvailable()).toBe(true)
    await init(p, home)
    await p.handleToolCall('mem0_add', { content: 'x' })
    expect(f.calls[0]!.body).toMatchObject({ user_id: 'envuser', agent_id: 'procagent' })
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ user_id: 'fileuser', agent_id: '' }))
    await init(p, home)
    await p.handleToolCall('mem0_add', { content: 'y' })
    expect(f.calls[1]!.body).toMatchObject({ user_id: 'fileuser', agent_id: 'procagent' })
  })

  it("upstream's placeholder user (hermes-user) lets the caller's own id through; none at all is hermes-user", async () => {
    const f = await fake('selfhosted')
    const home = tmpHome()
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ host: f.baseUrl, user_id: 'hermes-user' }))
    const { p } = provider(home, { MEM0_API_KEY: KEY })
    await init(p, home, 'tg-42')
    await p.handleToolCall('mem0_search', { query: 'anything' })
    await init(p, home)
    await p.handleToolCall('mem0_search', { query: 'anything' })
    expect(f.calls.map((c) => c.body.filters.user_id)).toEqual(['tg-42', 'hermes-user'])
  })

  it('a redirect is refused: the key never follows it to another origin', async () => {
    const f = await fake('selfhosted')
    const { createServer } = await import('node:http')
    const hop = createServer((_req, res) => {
      res.writeHead(307, { location: `${f.baseUrl}/memories` })
      res.end()
    })
    await new Promise<void>((r) => hop.listen(0, '127.0.0.1', r))
    cleanup.push(() => new Promise((r) => hop.close(r)))
    const home = tmpHome()
    const port = (hop.address() as { port: number }).port
    writeFileSync(join(home, 'mem0.json'), JSON.stringify({ host: `http://127.0.0.1:${port}` }))
    const { p } = provider(home, { MEM0_API_KEY: KEY })
    await init(p, home)
    const out = JSON.parse(await p.handleToolCall('mem0_add', { content: 'x' }))
    expect(out.error).toMatch(/^Failed to store: /)
    expect(out.error).not.toContain(KEY)
    expect(f.calls).toEqual([])
  })

  it('OSS mode (the in-process engine) is reported unavailable with the reason; no key, no server: unavailable', () => {
    const home = tmpHome()
    writeFileSync(
      join(home, 'mem0.json'),
      JSON.stringify({ mode: 'oss', oss: { vector_store: { provider: 'qdrant' } } })
    )
    const oss = new Mem0Provider({ secrets: { MEM0_API_KEY: KEY }, home, env: {} })
    expect(oss.isAvailable()).toBe(false)
    expect(oss.unavailableReason()).toContain('OSS mode')
    const none = new Mem0Provider({ secrets: {}, home: tmpHome(), env: {} })
    expect(none.isAvailable()).toBe(false)
    expect(none.unavailableReason()).toContain('MEM0_API_KEY is not set')
  })

  it('a platform key that the platform refuses: tools say the backend is not initialized, and it is checked again', async () => {
    const f = await fake('platform', 'the-right-key-000000')
    const home = tmpHome()
    const { p } = provider(home, { MEM0_API_KEY: KEY }, { cloudTo: f.baseUrl })
    await init(p, home)
    expect(await p.handleToolCall('mem0_search', { query: 'x' })).toMatch(
      /^\{"error": "Mem0 backend not initialized: Error: mem0 GET \/v1\/ping\/ returned HTTP 401: Invalid API key\."\}$/
    )
    expect(f.calls.map((c) => c.path)).toEqual(['/v1/ping/', '/v1/ping/'])
  })
})
