import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CaduceusError } from '@shared/contract'
import { loadConfig, readSoul } from './index'
import { agentSettings, busyInputMode } from './settings-schema'
import { modelSettings } from './settings-schema'
import { compressionPlan } from './compression'
import { resolveRuntime } from './index'
import { readSettings, writeSettings } from './settings'
import { EnvFileVault, redact, SecretMask, type SecretVault } from '../secrets'

/** Upstream's gateway reading `display.busy_input_mode` (scripts/golden/busy_input_mode.py). */
const busyGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/busy-input-mode/cases.json'), 'utf8')
) as { cases: Array<[string, string, string]> }
/** Upstream's agent reading `display.turn_completion_explainer` (scripts/golden/turn_explainer.py). */
const explainerGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/turn-explainer/golden.json'), 'utf8')
) as { enabled: Array<{ config: string; env: string | null; enabled: boolean }> }

/** The profile's `.env` as its vault (what a host without a keychain hands every reader). */
const envVault = new EnvFileVault()

const home = (yaml?: string, env?: string) => {
  const h = mkdtempSync(join(tmpdir(), 'cad-cfg-'))
  if (yaml !== undefined) writeFileSync(join(h, 'config.yaml'), yaml)
  if (env !== undefined) writeFileSync(join(h, '.env'), env)
  return h
}

describe('loadConfig', () => {
  it('missing file → empty config, no error', () => {
    const l = loadConfig(home())
    expect(l).toMatchObject({ raw: {}, exists: false, error: null })
  })

  it('malformed YAML → error object naming the file and line, never a throw', () => {
    const l = loadConfig(home('model: [unclosed\n  bad: : :\n'))
    expect(l.error?.code).toBe('malformed_config')
    expect(l.error?.message).toMatch(/config\.yaml is not valid YAML/)
    expect(l.raw).toEqual({})
  })

  // Runs as root too, where a chmod 000 file still reads: a folder in the file's place and a symlink loop fail for all.
  it('a config.yaml that cannot be read (a folder in its place, a symlink loop) is an error, never an absent file', () => {
    const dir = home()
    mkdirSync(join(dir, 'config.yaml'))
    expect(loadConfig(dir)).toMatchObject({ exists: true, raw: {}, error: { code: 'unreadable_config' } })
    const loop = home()
    symlinkSync(join(loop, 'config.yaml'), join(loop, 'config.yaml'))
    const l = loadConfig(loop)
    expect(l).toMatchObject({ exists: true, raw: {}, error: { code: 'unreadable_config' } })
    expect(l.error?.message).toMatch(/ELOOP/)
    // …so a turn refuses to run on defaults the user never chose.
    expect(resolveRuntime(loop, { vault: envVault }).configError?.code).toBe('unreadable_config')
  })

  // Upstream's start-up raises PermissionError on a .env it may not read (observed as uid nobody on a mode-000 file);
  // root reads such a file, so a folder and a symlink loop stand in for it here.
  it('a .env that cannot be read refuses the turn with the file named, instead of running without its keys', () => {
    const dir = home('model:\n  provider: openai\n')
    mkdirSync(join(dir, '.env'))
    const loop = home('model:\n  provider: openai\n')
    symlinkSync(join(loop, '.env'), join(loop, '.env'))
    for (const h of [dir, loop]) {
      const rt = resolveRuntime(h, { vault: envVault })
      expect(rt.configError).toMatchObject({ code: 'unreadable_env', path: join(h, '.env') })
      expect(rt.configError?.message).toMatch(/\.env cannot be read \((EISDIR|ELOOP).*\): its keys and settings/)
    }
    // No .env at all is no problem.
    expect(resolveRuntime(home('model:\n  provider: openai\n'), { vault: envVault }).configError).toBeNull()
  })

  it('non-mapping top level is an error', () => {
    expect(loadConfig(home('- a\n- b\n')).error?.message).toMatch(/mapping/)
  })

  it("reads a hand-edited config's scalars as upstream's loader does (PyYAML: yes/no/on/off are booleans)", () => {
    const dir = join(import.meta.dirname, '../../test/fixtures/upstream/config-scalars')
    const want = JSON.parse(readFileSync(join(dir, 'upstream.json'), 'utf8')) as { parsed: unknown }
    const l = loadConfig(home(readFileSync(join(dir, 'config.yaml'), 'utf8')))
    expect(l.error).toBeNull()
    expect(l.raw).toEqual(want.parsed)
  })

  it("${HERMES_HOME} is the folder config.yaml is in (upstream runs a profile with HERMES_HOME = its folder), never the process's", () => {
    const h = home('terminal:\n  cwd: ${HERMES_HOME}/work\ncron:\n  dir: "${HERMES_HOME}"\n')
    const saved = process.env.HERMES_HOME
    try {
      for (const env of ['', '/somewhere/else', undefined]) {
        if (env === undefined) delete process.env.HERMES_HOME
        else process.env.HERMES_HOME = env
        expect(loadConfig(h).raw).toEqual({ terminal: { cwd: `${h}/work` }, cron: { dir: h } })
      }
    } finally {
      if (saved === undefined) delete process.env.HERMES_HOME
      else process.env.HERMES_HOME = saved
    }
  })

  it('re-reads after the file changes', () => {
    const h = home('model: a\n')
    expect(modelSettings(loadConfig(h).raw).default).toBe('a')
    writeFileSync(join(h, 'config.yaml'), 'model: bbb\n')
    expect(modelSettings(loadConfig(h).raw).default).toBe('bbb')
  })
})

describe('typed accessors', () => {
  it('upstream defaults when absent', () => {
    expect(compressionPlan({}, 600_000)).toMatchObject({
      enabled: true,
      configuredThreshold: 0.5,
      threshold: 0.5,
      targetRatio: 0.2,
      protectLastN: 20
    })
    expect(agentSettings({}, {})).toMatchObject({ maxIterations: 90, disabledToolsets: [], reasoningEffort: null })
  })

  it("the compression plan names what moved the trigger off the configured share (the agent's rule, golden compression-defaults)", () => {
    const why = (section: Record<string, unknown>, window: number, maxTokens: number | null = null) => {
      const p = compressionPlan(section, window, maxTokens)
      return [p.triggerTokens, p.adjustments]
    }
    expect(why({ threshold: 0.8 }, 128_000)).toEqual([102_400, []])
    expect(why({}, 600_000)).toEqual([300_000, []])
    expect(why({ threshold: 0.5 }, 128_000)).toEqual([96_000, ['small_window']])
    expect(why({}, 70_000)).toEqual([64_000, ['small_window', 'min_tokens']])
    expect(why({}, 128_000, 64_000)).toEqual([
      54_400,
      ['small_window', 'max_tokens_reserved', 'min_tokens', 'full_window']
    ])
    expect(why({}, 600_000, 100_000)).toEqual([250_000, ['max_tokens_reserved']])
  })

  it("a value upstream turns into text keeps Python's str() of it through every rewrite of the read ('1.0' is not '1')", () => {
    const enabled = (yaml: string, env?: string) =>
      resolveRuntime(home(yaml, env), { vault: envVault }).compression.enabled
    // as written; with ${VAR}s expanded (every mapping copied); with a legacy root key moved into model.*
    expect(enabled('compression: {enabled: 1.0}\n')).toBe(false)
    expect(enabled('compression: {enabled: 1}\n')).toBe(true)
    expect(enabled('model: {default: "${M}"}\ncompression: {enabled: 1.0}\n', 'M=gpt-5\n')).toBe(false)
    expect(enabled('provider: openai\nmax_turns: 3\ncompression: {enabled: 1.0}\n')).toBe(false)
    // an anchor merged into the section keeps it too
    expect(enabled('base: &b {enabled: 1.0}\ncompression: {<<: *b}\n')).toBe(false)
  })

  it('reads values and tolerates wrong types', () => {
    const loadedHome = home(`
model: {default: gpt-5, provider: openai, base_url: "http://x/v1", api_mode: chat_completions, context_length: 1000, max_tokens: 50}
compression: {enabled: false, threshold: 0.7, target_ratio: 0.3, protect_last_n: 5}
delegation: {max_retained: 2, retained_ttl_hours: 1, max_concurrent_children: 4, max_spawn_depth: 0, max_iterations: 7}
memory: {provider: honcho}
agent: {max_turns: 12, disabled_toolsets: [web, 3], reasoning_effort: High}
`)
    const raw = loadConfig(loadedHome).raw
    expect(modelSettings(raw)).toMatchObject({
      default: 'gpt-5',
      provider: 'openai',
      baseUrl: 'http://x/v1',
      contextLength: 1000,
      maxTokens: 50
    })
    expect(resolveRuntime(loadedHome, { vault: envVault }).compression).toMatchObject({
      enabled: false,
      configuredThreshold: 0.7,
      targetRatio: 0.3,
      protectLastN: 5
    })
    expect(agentSettings(raw, {})).toMatchObject({
      maxIterations: 12,
      disabledToolsets: ['web'],
      reasoningEffort: 'high'
    })
    // upstream never reads agent.max_iterations (only delegation's): it is not a spelling of the budget
    expect(agentSettings({ agent: { max_iterations: 12 } }, {}).maxIterations).toBe(90)
    expect(agentSettings({ agent: { reasoning_effort: 'ludicrous' } }).reasoningEffort).toBeNull()
    expect(compressionPlan({ threshold: 'high' }, 600_000).configuredThreshold).toBe(0.5)
    // float()'s syntax, not JavaScript's: no hex (upstream refuses it), underscores between digits, a bool as 1
    expect(compressionPlan({ threshold: '0x1', target_ratio: '0.2_5', protect_last_n: true }, 600_000)).toMatchObject({
      configuredThreshold: 0.5,
      targetRatio: 0.25,
      protectLastN: 1
    })
  })

  it('model may be a bare string', () => {
    expect(modelSettings({ model: 'claude-x' }).default).toBe('claude-x')
  })
})

describe("a custom endpoint's key, as upstream picks it", () => {
  // scripts/golden/custom_keys.py: upstream's resolve_runtime_provider on each home (#28660's host gates)
  const gold = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/custom-keys/cases.json'), 'utf8')
  ) as { cases: Array<{ config: string; env: string; base_url: string; api_key: string }> }
  it('Settings saves the key where upstream reads it: the host-named secret, or config.yaml for a local endpoint', () => {
    const ds = home('model:\n  default: deepseek-chat\n  provider: custom\n  base_url: https://api.deepseek.com/v1\n')
    expect(writeSettings(ds, { apiKey: 'sk-ds-new$2024' }, { vault: envVault })).toMatchObject({
      apiKeySet: true,
      apiKeyStorage: 'env_file'
    })
    expect(readFileSync(join(ds, '.env'), 'utf8')).toBe("DEEPSEEK_API_KEY='sk-ds-new$2024'\n")
    const local = home('model:\n  default: llama3\n  provider: custom\n  base_url: http://localhost:11434/v1\n')
    expect(writeSettings(local, { apiKey: 'sk-local-1' }, { vault: envVault })).toMatchObject({
      apiKeySet: true,
      apiKeyStorage: 'config'
    })
    expect(loadConfig(local).raw).toMatchObject({ model: { api_key: 'sk-local-1' } })
    expect(resolveRuntime(local, { vault: envVault }).apiKey).toBe('sk-local-1')
    writeSettings(local, { apiKey: '' }, { vault: envVault })
    expect(JSON.stringify(loadConfig(local).raw)).not.toContain('sk-local-1')
  })
  it('a key Settings saves over `api_key: ${NAME}` goes to NAME; one written into config.yaml makes it 0600', () => {
    const ref = home(
      'model:\n  default: m\n  provider: custom\n  base_url: https://api.deepseek.com/v1\n  api_key: ${MY_DS_KEY}\n'
    )
    writeFileSync(join(ref, '.env'), 'MY_DS_KEY=sk-old\n')
    writeSettings(ref, { apiKey: 'sk-new-0001' }, { vault: envVault })
    expect(readFileSync(join(ref, 'config.yaml'), 'utf8')).toContain('api_key: ${MY_DS_KEY}')
    expect(readFileSync(join(ref, '.env'), 'utf8')).toBe('MY_DS_KEY=sk-new-0001\n')
    expect(resolveRuntime(ref, { vault: envVault }).apiKey).toBe('sk-new-0001')
    const local = home('model:\n  default: llama3\n  provider: custom\n  base_url: http://localhost:11434/v1\n')
    chmodSync(join(local, 'config.yaml'), 0o644)
    writeSettings(local, { apiKey: 'sk-local-2' }, { vault: envVault })
    expect(statSync(join(local, 'config.yaml')).mode & 0o777).toBe(0o600)
  })

  it.each(
    gold.cases.map(
      (c) =>
        [
          /provider: (\S+)/.exec(c.config)![1],
          c.base_url,
          c.config.includes('api_key') ? 'config key' : 'env keys',
          c
        ] as const
    )
  )('%s %s (%s)', (_provider, _url, _what, c) => {
    const h = home(c.config)
    writeFileSync(join(h, '.env'), c.env)
    expect(resolveRuntime(h, { vault: envVault }).apiKey).toBe(c.api_key)
  })
})

describe('resolveRuntime', () => {
  it('reads the key from the profile secrets by provider', () => {
    const h = home(
      'model: {default: claude-sonnet-4, provider: anthropic}\n',
      'ANTHROPIC_API_KEY=sk-ant-xyz\nOPENAI_API_KEY=sk-o\n'
    )
    const rt = resolveRuntime(h, { vault: envVault })
    expect(rt).toMatchObject({
      model: 'claude-sonnet-4',
      provider: 'anthropic',
      apiMode: 'anthropic_messages',
      apiKey: 'sk-ant-xyz',
      baseUrl: 'https://api.anthropic.com',
      requestedProvider: 'anthropic'
    })
  })

  it('honours model.api_key_env and a custom base_url', () => {
    const h = home('model: {default: m, base_url: "http://127.0.0.1:9/v1", api_key_env: MY_KEY}\n', 'MY_KEY=abcd-key\n')
    expect(resolveRuntime(h, { vault: envVault })).toMatchObject({
      provider: 'custom',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'abcd-key',
      apiMode: 'chat_completions',
      requestedProvider: 'auto'
    })
  })

  it('infers openrouter from its key when nothing is configured', () => {
    expect(resolveRuntime(home(undefined, 'OPENROUTER_API_KEY=sk-or-1\n'), { vault: envVault })).toMatchObject({
      provider: 'openrouter',
      apiKey: 'sk-or-1'
    })
  })

  // seed 001: test_default_gateway_runtime_forwards_filtered_capabilities
  it('forwards only boolean provider capabilities', () => {
    const h = home(
      'model:\n  default: m\n  provider: custom\n  base_url: "https://trusted-proxy.example/v1"\n  capabilities:\n    openai_native_compaction: true\n    ignore-me: not-a-bool\n'
    )
    expect(resolveRuntime(h, { vault: envVault }).capabilities).toEqual({ openai_native_compaction: true })
  })

  // A cron job's provider/base_url (upstream job fields) must not carry the profile's key to another endpoint.
  describe('with a job override', () => {
    const profile = () =>
      home(
        'model: {default: m, provider: openrouter, api_key_env: MY_OR_KEY}\n',
        'MY_OR_KEY=sk-or-own\nOPENROUTER_API_KEY=sk-or-env\nOPENAI_API_KEY=sk-oa\n'
      )
    it('a base_url alone on a foreign host gets no key at all', () => {
      expect(
        resolveRuntime(profile(), { vault: envVault, override: { baseUrl: 'https://evil.example/v1' } })
      ).toMatchObject({
        provider: 'custom',
        baseUrl: 'https://evil.example/v1',
        apiKey: '',
        apiKeyEnv: ''
      })
    })
    it('naming the profile’s own provider does not carry its key to a foreign host either', () => {
      const rt = resolveRuntime(profile(), {
        vault: envVault,
        override: { provider: 'openrouter', baseUrl: 'http://127.0.0.1:9/v1' }
      })
      expect(rt).toMatchObject({ provider: 'openrouter', baseUrl: 'http://127.0.0.1:9/v1', apiKey: '' })
    })
    it('another provider on its official host gets that provider’s key; the own endpoint keeps the own key', () => {
      expect(resolveRuntime(profile(), { vault: envVault, override: { provider: 'openai' } })).toMatchObject({
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        apiKey: 'sk-oa'
      })
      expect(
        resolveRuntime(profile(), { vault: envVault, override: { baseUrl: 'https://openrouter.ai/api/v1/' } })
      ).toMatchObject({
        apiKeyEnv: 'MY_OR_KEY',
        apiKey: 'sk-or-own'
      })
    })
  })

  it('surfaces a malformed config instead of throwing', () => {
    expect(resolveRuntime(home('a: [\n'), { vault: envVault }).configError?.code).toBe('malformed_config')
  })
})

describe('settings', () => {
  it('readSettings never returns the key', () => {
    const h = home('model: gpt-4o\n', 'OPENAI_API_KEY=sk-secret-123456\n')
    const s = readSettings(h, { profile: 'default', vault: envVault })
    expect(s).toMatchObject({
      profile: 'default',
      model: 'gpt-4o',
      apiKeySet: true,
      apiKeyStorage: 'env_file',
      maxIterations: 90,
      // config.yaml asks for nothing: upstream's 0.5, raised to 0.75 of the 256K fallback window, is where it compresses
      compression: {
        enabled: true,
        configuredThreshold: 0.5,
        triggerTokens: 192_000,
        contextWindow: 256_000,
        maxTokens: null,
        adjustments: ['small_window']
      }
    })
    expect(JSON.stringify(s)).not.toContain('sk-secret')
  })

  it('shows the compression threshold the agent starts from, a quoted number too (upstream float()s it)', () => {
    const h = home('model: gpt-4o\ncompression:\n  threshold: "0.7"\n')
    expect(readSettings(h, { vault: envVault }).compression.configuredThreshold).toBe(0.7)
  })

  it('writeSettings keeps other keys and comments, stores the key in .env 0600', () => {
    const h = home('# my config\nmodel: gpt-4o  # the model\ncompression:\n  threshold: 0.8  # keep me\n')
    const s = writeSettings(
      h,
      { model: 'gpt-5', provider: 'openai', apiKey: 'sk-new-key-0001' },
      { profile: 'work', vault: envVault }
    )
    const text = readFileSync(join(h, 'config.yaml'), 'utf8')
    expect(text).toContain('# my config')
    expect(text).toContain('# keep me')
    expect(text).toContain('threshold: 0.8')
    expect(text).not.toContain('sk-new-key')
    expect(s).toMatchObject({
      profile: 'work',
      model: 'gpt-5',
      provider: 'openai',
      apiKeySet: true,
      compression: { configuredThreshold: 0.8, triggerTokens: 204_800, adjustments: [] }
    })
    expect(readFileSync(join(h, '.env'), 'utf8')).toBe('OPENAI_API_KEY=sk-new-key-0001\n')
    expect(statSync(join(h, '.env')).mode & 0o777).toBe(0o600)
    expect(resolveRuntime(h, { vault: envVault }).apiKey).toBe('sk-new-key-0001')
  })

  it('a value PyYAML would read as a boolean is written quoted; an untouched yes/off keeps its spelling', () => {
    const h = home('memory:\n  memory_enabled: yes  # on\ncompression:\n  enabled: Off\nmodel: gpt-4o\n')
    writeSettings(h, { model: 'No' }, { vault: envVault })
    const text = readFileSync(join(h, 'config.yaml'), 'utf8')
    // only the edited value's bytes change: the comment keeps its spacing, a bare `model:` stays bare
    expect(text).toBe('memory:\n  memory_enabled: yes  # on\ncompression:\n  enabled: Off\nmodel: "No"\n')
    expect(loadConfig(h).raw).toMatchObject({ model: 'No', memory: { memory_enabled: true } })
    expect(readSettings(h, { vault: envVault }).model).toBe('No')
  })

  // scripts/golden/busy_input_mode.py: upstream's gateway (_load_busy_input_mode, _load_busy_text_mode) on each file
  it('reads display.busy_input_mode as upstream’s gateway does, for every recorded config', () => {
    expect(busyGolden.cases.length).toBeGreaterThan(15)
    for (const [yaml, input, text] of busyGolden.cases) {
      // what upstream does with a text message sent mid-turn: steer wins; either knob saying queue queues
      const effective = input === 'steer' ? 'steer' : input === 'queue' || text === 'queue' ? 'queue' : 'interrupt'
      expect([yaml, busyInputMode(loadConfig(home(yaml)).raw)]).toEqual([yaml, effective])
      expect(readSettings(home(yaml), { vault: envVault }).busyInputMode).toBe(effective)
    }
  })

  // scripts/golden/turn_explainer.py: upstream's AIAgent._turn_completion_explainer_enabled on each file and variable
  it('reads display.turn_completion_explainer (HERMES_TURN_COMPLETION_EXPLAINER over it) as upstream’s agent does', () => {
    expect(explainerGolden.enabled.length).toBeGreaterThan(10)
    for (const { config, env, enabled } of explainerGolden.enabled) {
      const vars = env === null ? {} : { HERMES_TURN_COMPLETION_EXPLAINER: env }
      expect([config, env, agentSettings(loadConfig(home(config)).raw, vars).turnExplainer]).toEqual([
        config,
        env,
        enabled
      ])
    }
  })

  it('writes display.busy_input_mode in place, keeping comments, and keeps the legacy knob from overriding it', () => {
    const h = home('# mine\ndisplay:\n  streaming: true  # keep\n  busy_text_mode: queue\nmodel: gpt-4o\n')
    expect(readSettings(h, { vault: envVault }).busyInputMode).toBe('queue') // the legacy knob, as upstream reads it
    expect(writeSettings(h, { busyInputMode: 'interrupt' }, { vault: envVault }).busyInputMode).toBe('interrupt')
    const text = readFileSync(join(h, 'config.yaml'), 'utf8')
    expect(text).toContain('# mine')
    expect(text).toContain('streaming: true  # keep')
    expect(text).toContain('busy_input_mode: interrupt')
    expect(text).toContain('busy_text_mode: interrupt')
    expect(text).toContain('model: gpt-4o')
    expect(writeSettings(h, { busyInputMode: 'steer' }, { vault: envVault }).busyInputMode).toBe('steer')
    // a `display` that is no mapping (upstream ignores it) becomes one; a file without one gets it
    const odd = home('display: compact\n')
    expect(writeSettings(odd, { busyInputMode: 'queue' }, { vault: envVault }).busyInputMode).toBe('queue')
    expect(readFileSync(join(odd, 'config.yaml'), 'utf8')).toBe('display:\n  busy_input_mode: queue\n')
    expect(writeSettings(home(), { busyInputMode: 'steer' }, { vault: envVault }).busyInputMode).toBe('steer')
    expect(() => writeSettings(h, { busyInputMode: 'later' as never }, { vault: envVault })).toThrow(CaduceusError)
  })

  it('empty key clears it', () => {
    const h = home('model: {default: m, provider: openai}\n', 'OPENAI_API_KEY=sk-1\nKEEP=1\n')
    expect(writeSettings(h, { apiKey: '' }, { vault: envVault }).apiKeySet).toBe(false)
    expect(readFileSync(join(h, '.env'), 'utf8')).toBe('KEEP=1\n')
  })

  it('refuses to rewrite a malformed config and rejects bad input', () => {
    const h = home('model: [\n')
    expect(() => writeSettings(h, { model: 'x' }, { vault: envVault })).toThrow(CaduceusError)
    expect(readFileSync(join(h, 'config.yaml'), 'utf8')).toBe('model: [\n')
    expect(() => writeSettings(home(), { baseUrl: 'not a url' }, { vault: envVault })).toThrow(/URL/)
  })

  it('a keychain vault plugs in through the same interface', () => {
    const store = new Map<string, string>()
    const vault: SecretVault = {
      storage: 'safe_storage',
      read: () => Object.fromEntries(store),
      write: (_h, name, value) => void (value === null ? store.delete(name) : store.set(name, value)),
      mask: new SecretMask()
    }
    const h = home('model: {default: m, provider: anthropic}\n')
    const s = writeSettings(h, { apiKey: 'sk-ant-vault' }, { vault })
    expect(store.get('ANTHROPIC_API_KEY')).toBe('sk-ant-vault')
    expect(s).toMatchObject({ apiKeySet: true, apiKeyStorage: 'safe_storage' })
    expect(resolveRuntime(h, { vault }).apiKey).toBe('sk-ant-vault')
  })
})

describe('a base URL with a password', () => {
  it('its password (as written and percent-decoded) is a remembered secret once the runtime is resolved', () => {
    const h = home(
      'model:\n  default: m\n  provider: custom\n  base_url: https://proxyuser:Qv7%2Fr9Tk4Wm@llm.internal/v1\n'
    )
    expect(resolveRuntime(h, { vault: envVault }).baseUrl).toContain('Qv7%2Fr9Tk4Wm')
    // No shape around it: only the remembered value masks it.
    expect(redact('echoed Qv7%2Fr9Tk4Wm and Qv7/r9Tk4Wm back')).toBe('echoed *** and *** back')
  })
})

/** Upstream's chat and gateway reading the turn budget (scripts/golden/max_turns.py, its own readers). */
describe('the turn budget (agent.max_turns), as upstream reads it', () => {
  type Value = number | 'inf' | 'nan' | { type: string; repr: string }
  const golden = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/max-turns/cases.json'), 'utf8')
  ) as {
    modelSection: string
    cases: Array<{
      name: string
      config: string
      env: string | null
      dotenv: string | null
      chat: Value
      gateway: number
    }>
  }
  // Upstream would fail the turn (a value no number) or run no model call (NaN, zero, a negative): 90 here, said.
  const usable = (v: Value) => (v === 'inf' ? Infinity : typeof v === 'number' && v > 0 ? v : null)

  it.each(golden.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const h = home(golden.modelSection + c.config, c.dotenv ?? undefined)
    // the profile's .env over the process's, as upstream loads it
    const env = {
      ...(c.env === null ? {} : { HERMES_MAX_ITERATIONS: c.env }),
      ...(c.dotenv ? { HERMES_MAX_ITERATIONS: '44' } : {})
    }
    const { budgets } = agentSettings(loadConfig(h).raw, env)
    for (const [reader, theirs] of [
      ['chat', c.chat],
      ['gateway', c.gateway]
    ] as const) {
      const n = usable(theirs)
      if (n !== null) expect(budgets[reader].max, reader).toBe(n)
      else {
        expect(budgets[reader].max, reader).toBe(90)
        expect(budgets[reader].warning, reader).toMatch(/which is no number of model calls above 0|reads only as/)
      }
    }
    // cron is the chat's reading without the variable
    expect(budgets.cron.max).toBe(agentSettings(loadConfig(h).raw, {}).budgets.chat.max)
  })

  it('names the value it left out', () => {
    const b = agentSettings(loadConfig(home('agent:\n  max_turns: lots\n')).raw, {
      HERMES_MAX_ITERATIONS: 'many'
    }).budgets
    expect(b.chat.warning).toBe(
      'config.yaml agent.max_turns is "lots", which is no number of model calls above 0, so a turn may make 90 model calls.'
    )
    expect(b.gateway.warning).toBe(
      'config.yaml agent.max_turns is "lots", which the API server (as upstream\'s) reads only as a whole number, so a turn may make 90 model calls.'
    )
    expect(agentSettings({}, { HERMES_MAX_ITERATIONS: 'many' }).budgets.gateway.warning).toBe(
      'HERMES_MAX_ITERATIONS=many is no whole number, so a turn may make 90 model calls.'
    )
  })
})

/** Upstream's SOUL.md loader over sizes, context lengths and context_file_max_chars (scripts/golden/soul_truncate.py). */
const soulGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/soul-truncate/upstream.json'), 'utf8')
) as {
  unknownModelContextLength: number
  cases: Array<{
    size: number
    astral: boolean
    contextLength: number | null
    config: string | null
    length: number
    cut: { head: number; tail: number } | null
  }>
}

/** The golden script's soul_text: numbered lines, `size` code points, stripped, then "!". */
function soulText(size: number, astral: boolean): string {
  const lines: string[] = []
  let n = 0
  for (let len = 0; len < size; n++) {
    const line = `line ${n} ${astral ? '🙂' : 'x'} persona rule\n`
    lines.push(line)
    len += Array.from(line).length
  }
  return Array.from(lines.join('')).slice(0, size).join('').trim() + '!'
}

describe('SOUL.md over the limit: head and tail kept as upstream keeps them', () => {
  it("takes the model's context window from config.yaml, else upstream's fallback for a model no lookup knows", () => {
    const stated = resolveRuntime(home('model:\n  provider: openai\n  context_length: 32000\n'), { vault: envVault })
    expect(stated.contextWindow).toBe(32_000)
    const unstated = resolveRuntime(home('model:\n  provider: openai\n'), { vault: envVault })
    expect(unstated.contextWindow).toBe(soulGolden.unknownModelContextLength)
  })

  it.each(soulGolden.cases.map((c) => [`${c.length} chars, ctx ${c.contextLength}, ${c.config}`, c] as const))(
    '%s',
    (_n, c) => {
      const h = home(c.config ?? '')
      const text = soulText(c.size, c.astral)
      writeFileSync(join(h, 'SOUL.md'), text)
      const got = readSoul(h, { contextLength: c.contextLength, config: loadConfig(h).raw })
      if (!c.cut) return expect(got).toBe(text)
      const points = Array.from(text)
      const head = points.slice(0, c.cut.head).join('')
      const tail = points.slice(points.length - c.cut.tail).join('')
      expect(got.startsWith(head + '\n\n[SOUL.md is ')).toBe(true)
      expect(got.endsWith(']\n\n' + tail)).toBe(true)
      expect(got).toContain(join(h, 'SOUL.md'))
      expect(Array.from(got).length - c.cut.head - c.cut.tail).toBeLessThan(400) // only the marker between them
    }
  )
})
