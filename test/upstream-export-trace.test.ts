// `caduceus sessions export --format trace|html` against upstream's `hermes sessions export --format trace|html` on a
// home upstream wrote (scripts/golden/export_trace.py → test/fixtures/upstream/export-trace): the trace's records
// one by one — type, fields, links, content blocks, tool_use/tool_result pairing, model — and the words each run
// prints; then the HTML page: one per selection, escaped, folded, self-contained. All through the CLI's own code,
// in-process, on copies of the golden home.
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../src-main/host/cli/main'
import { sessionsCliApart } from './helpers/cli-in-process'
import { SessionStore } from '../src-main/store'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const gold = resolve(import.meta.dirname, 'fixtures/upstream/export-trace')
const G = JSON.parse(readFileSync(join(gold, 'cases.json'), 'utf8')) as {
  upstream_commit: string
  traces: Record<string, Rec[]>
  printed: Record<string, string>
  files: Record<string, string[]>
}
const KEYS = ['sk-proj-Zx81bQ4nTq7LmV2cW9eR0aYu', 'ghp_R2d9Kq7LmZx81bQ4nTqWc0aYuV3eP5sD', 'AKIAZ7Q4N2LMV8CW9ER0']

afterAll(cleanupTempDirs)
let home: string
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = tempDir('cad-export-trace-logs-')
  home = tempDir('cad-export-trace-')
  cpSync(join(gold, 'home'), home, { recursive: true })
})

/** `caduceus sessions export <argv> --home H` in-process: its code, stdout and what it printed. */
const exportCli = (argv: string[]) => sessionsCliApart(home, ['export', ...argv])

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
/** The golden script's normalisation: links as record indexes, per-run values as X; and the fields Caduceus fills
 * differently on purpose (its own version, the message's time, the session's folder) checked, then X too. */
function normalise(text: string, sessionCwd = ''): Rec[] {
  const recs = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Rec)
  const index = new Map(recs.map((r, i) => [r.uuid as string, i]))
  return recs.map((r) => {
    expect(r.uuid).toMatch(UUID)
    expect(r.version).toBe('caduceus')
    expect(r.cwd).toBe(sessionCwd)
    expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const blocks = Array.isArray(r.message.content) ? (r.message.content as Rec[]) : []
    for (const b of blocks) if (b.type === 'tool_use' && /^toolu_[0-9a-f]{16}$/.test(b.id)) b.id = 'toolu_X'
    const parent = r.parentUuid === null ? null : index.get(r.parentUuid)
    return { ...r, uuid: index.get(r.uuid), parentUuid: parent, timestamp: 'X', cwd: 'X', version: 'hermes-agent' }
  })
}

/**
 * Where Caduceus's trace reads an attachment differently on purpose (export-trace.ts): any attachment is a
 * placeholder, also a message's only part, where upstream writes audio (its base64 data included) and a lone part
 * as JSON text. [case, record index, the content Caduceus writes].
 */
const DEPARTURES: Array<[string, number, unknown]> = [
  ['mm-many', 2, [{ type: 'text', text: 'a lone dict part kettle' }]],
  [
    'odd',
    2,
    [
      { type: 'text', text: '[audio omitted]' },
      { type: 'text', text: 'hear this walrus' }
    ]
  ],
  ['odd', 3, [{ type: 'text', text: '[image omitted]' }]]
]
function withDepartures(name: string, recs: Rec[]): Rec[] {
  return recs.map((r, i) => {
    const d = DEPARTURES.find(([n, at]) => n === name && at === i)
    return d ? { ...r, message: { ...r.message, content: d[2] } } : r
  })
}

describe("sessions export --format trace writes the records upstream's trace export writes", () => {
  it('was recorded from upstream', () => expect(G.upstream_commit).toMatch(/^[0-9a-f]{40}$/))

  const single = ['big-tools', 'mm-many', 'odd', 'compact', 'chain-3', 'trace-keys', 'trace-keys no-redact']
  it.each(single)('%s: record by record', async (name) => {
    const flags = name.endsWith('no-redact') ? ['--no-redact'] : []
    const id = name.split(' ')[0]!
    const { code, stdout, printed } = await exportCli(['--format', 'trace', '--session-id', id, ...flags, '-'])
    expect([code, printed]).toEqual([0, G.printed[name]])
    const cwd = id === 'trace-keys' ? '/srv/app' : ''
    expect(normalise(stdout, cwd)).toEqual(withDepartures(name, G.traces[name]!))
  })

  it("carries each message's own time, and pairs every tool_result with the tool_use before it", async () => {
    const { stdout } = await exportCli(['--format', 'trace', '--session-id', 'trace-keys'])
    const recs = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec)
    // the stored rows are 1500040001 … 1500040008 (the system prompt at …000 is no record)
    expect(recs.map((r) => Date.parse(r.timestamp) / 1000)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => 1500040000 + n))
    const uses = recs.flatMap((r) => (r.message.content as Rec[]).filter?.((b) => b.type === 'tool_use') ?? [])
    expect(uses.map((u) => u.id)).toContain('call_env')
    const results = recs.flatMap((r) => (Array.isArray(r.message.content) ? r.message.content : []))
    expect(results.find((b: Rec) => b.type === 'tool_result')?.tool_use_id).toBe('call_env')
  })

  it('masks the credentials in a tool call and its result by default; --no-redact keeps them', async () => {
    const masked = (await exportCli(['--format', 'trace', '--session-id', 'trace-keys', '-'])).stdout
    for (const k of KEYS) expect(masked).not.toContain(k)
    const whole = (await exportCli(['--format', 'trace', '--session-id', 'trace-keys', '--no-redact', '-'])).stdout
    for (const k of KEYS) expect(whole).toContain(k)
  })

  it('a file, a prefix, and a filter: the same files and words as upstream', async () => {
    const dir = tempDir('cad-trace-out-')
    const file = join(dir, 'out.file')
    const one = await exportCli(['--format', 'trace', '--session-id', 'trace', file])
    expect(one.printed.replaceAll(file, 'OUT')).toBe(G.printed['trace-keys file'])
    expect(normalise(readFileSync(file, 'utf8'), '/srv/app')).toEqual(G.traces['trace-keys file: OUT'])
    // a filter matching one session: that session on stdout, as upstream
    const discord = await exportCli(['--format', 'trace', '--source', 'discord', '-'])
    expect(normalise(discord.stdout)).toEqual(withDepartures('mm-many', G.traces['filter one']!))
    // several: one file per session in the folder
    const folder = join(dir, 'dir')
    const many = await exportCli(['--format', 'trace', '--title', 'plan', folder])
    expect(many.printed.replaceAll(folder, 'DIR')).toBe(G.printed['filter many'])
    expect(readdirSync(folder).sort()).toEqual(G.files['filter many'])
    for (const f of G.files['filter many']!)
      expect(normalise(readFileSync(join(folder, f), 'utf8'))).toEqual(G.traces[`filter many: ${f}`])
    const dry = await exportCli(['--format', 'trace', '--title', 'plan', '--dry-run', join(dir, 'dry')])
    expect(dry.printed).toBe(G.printed['filter dry-run'])
    expect(existsSync(join(dir, 'dry'))).toBe(false)
    const none = await exportCli(['--format', 'trace', '--source', 'nowhere', join(dir, 'none')])
    expect(none.printed.replaceAll(join(dir, 'none'), 'DIR')).toBe(G.printed['filter none'])
  })

  it("refuses what upstream refuses, in upstream's words (exiting non-zero where upstream exits 0)", async () => {
    for (const [name, flags] of [
      ['bare', ['-']],
      ['empty', ['--session-id', 'empty-titled', '-']],
      ['missing', ['--session-id', 'nope', '-']],
      ['only', ['--only', 'user-prompts', '-']]
    ] as const)
      await expect(exportCli(['--format', 'trace', ...flags])).rejects.toThrow(G.printed[name]!.trim())
  })

  it('--upload (and --public) is refused in one line with exit 2, before anything is read or written', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      for (const flag of ['--upload', '--public']) {
        expect(await runCli(['sessions', 'export', '--format', 'trace', flag, '--home', home])).toBe(2)
        const line = String(err.mock.calls.at(-1)?.[0])
        expect(line).toMatch(/upload/)
        expect(line.split('\n')).toHaveLength(1)
      }
    } finally {
      err.mockRestore()
    }
  })
})

describe('sessions export --format html: one self-contained page per selection', () => {
  it("chooses and names what upstream's chooses, in its words", async () => {
    const dir = tempDir('cad-html-out-')
    const file = join(dir, 'out.file')
    const one = await exportCli(['--format', 'html', '--session-id', 'big-tools', file])
    expect(one.printed.replaceAll(file, 'OUT')).toBe(G.printed['html one'])
    const many = await exportCli(['--format', 'html', '--title', 'plan', file])
    expect(many.printed.replaceAll(file, 'OUT')).toBe(G.printed['html filter'])
    const page = readFileSync(file, 'utf8')
    // one page, a link to each session's section
    expect(page.match(/<section id="session-\d+"/g)).toHaveLength(3)
    expect(page.match(/<a href="#session-\d+">/g)).toHaveLength(3)
    await expect(exportCli(['--format', 'html', '--session-id', 'nope', file])).rejects.toThrow(
      G.printed['html missing']!.trim()
    )
    await expect(exportCli(['--format', 'html', '--only', 'user-prompts', file])).rejects.toThrow(
      '--only user-prompts supports --format jsonl or md.'
    )
  })

  it('escapes every text, folds tool calls and summaries, shows attachments as placeholders, loads nothing', async () => {
    const store = new SessionStore(join(home, 'state.db'))
    await store.createSession('markup', 'cli', { model: 'm' })
    await store.appendMessages('markup', [
      { role: 'user', content: 'see <script>alert(1)</script> and </textarea><b>x</b> & "q"', timestamp: 1500050001 },
      {
        role: 'assistant',
        content: 'checking',
        toolCalls: [{ id: 'c1', name: 'terminal', arguments: '{"command":"echo <i>"}' }],
        timestamp: 1500050002
      },
      {
        role: 'tool',
        content: '{"output": "</pre><script>x()</script>", "exit_code": 0}',
        toolCallId: 'c1',
        toolName: 'terminal',
        timestamp: 1500050003
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a picture' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAA=' } }
        ],
        timestamp: 1500050004
      },
      { role: 'user', content: '[CONTEXT COMPACTION] Earlier turns: <b>bold</b> plans', timestamp: 1500050005 }
    ])
    store.close()
    const { stdout } = await exportCli(['--format', 'html', '--session-id', 'markup', '-'])
    expect(stdout).toMatch(/^<!DOCTYPE html>/)
    // nothing from the session is markup: no script element, no closing textarea or pre of its own
    expect(stdout).not.toMatch(/<script|<\/textarea|<b>|<i>|x\(\)<\/script>/i)
    expect(stdout).toContain(
      'see &lt;script&gt;alert(1)&lt;/script&gt; and &lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;'
    )
    // the tool call folded with its result under it; the summary folded; the image a placeholder
    expect(stdout).toMatch(
      /<details class="tool-call"><summary>Tool call: <code>terminal<\/code>[^]*&lt;\/pre&gt;&lt;script&gt;x\(\)[^]*<\/details>/
    )
    expect(stdout).toMatch(
      /<h2 class="who">Compaction summary<time [^]*?<details><summary>The summary · [\d,]+ chars<\/summary>/
    )
    expect(stdout).toContain('[image: image/png')
    expect(stdout).not.toContain('iVBORw0KGgo')
    // self-contained and script-free: no external reference, a policy forbidding scripts, both colour schemes
    expect(stdout).not.toMatch(/\b(src|href)="(https?:)?\/\//)
    expect(stdout).toContain(`default-src 'none'`)
    expect(stdout).toContain('@media (prefers-color-scheme: dark)')
  })
})
