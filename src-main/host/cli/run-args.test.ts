// `run -z` / `-z` argument lines through the parser bin/caduceus.mjs checks before the host loads (its
// oneShotUsageError prefixes the message with "caduceus run: " and exits 2 with the usage; the one-shot itself parses
// with it too). Representative lines also go through the real entry: test/cli-run.test.ts. Also what --help prints for
// the command it is on (helpFor); the refusal of an argument that is not UTF-8 is test/cli-run.test.ts's (a real argv).
// And the other commands' lines (parseArgs): each command takes its own flags and refuses another's (command-flags.ts;
// upstream's refusals: test/cli-more-verbs.test.ts, the built CLI's: test/cli.test.ts).
import { describe, expect, it } from 'vitest'
import { parseArgs } from './args'
import { isOneShot, parseRunArgs, UsageError } from './run-args'
import { CRON_USAGE, helpFor, USAGE, wantsHelp } from './usage'

describe('run -z usage errors (exit 2 before anything is sent)', () => {
  it.each([
    [['run', '-z', 'hi', '--bogus', '--home', '/h'], 'unknown option --bogus for run'],
    [['-z', 'hi', '--home', '/h', '--model'], '--model needs a value'],
    [['-z', '--home', '--json', 'hi'], '--home needs a value'],
    [['run', '-z', '-', 'and', 'words', '--home', '/h'], 'give the prompt as words or as - (stdin), not both'],
    [['run', '-z', 'hi', '--usage-file='], '--usage-file needs a value']
  ])('%j → %s', (argv, message) => {
    expect(isOneShot(argv)).toBe(true)
    expect(wantsHelp(argv)).toBe(false)
    expect(() => parseRunArgs(argv)).toThrow(new UsageError(message))
  })

  it('the usage printed with them names the one-shot form', () => {
    expect(USAGE).toContain('caduceus run -z PROMPT')
  })

  it('help and other commands are never a one-shot usage error', () => {
    expect(wantsHelp(['run', '-z', 'hi', '--bogus', '-h'])).toBe(true)
    expect(isOneShot(['sessions', 'list', '--bogus'])).toBe(false)
  })
})

describe('run -z parsing', () => {
  it.each([
    [
      ['-z', '--home', '/h', 'summarise', 'my', 'inbox', '--json', '--usage-file', 'u.json'],
      { home: '/h', json: true, usageFile: 'u.json', prompt: 'summarise my inbox' }
    ],
    [
      ['run', '--home', '/h', '-z', '--', '--json', 'is', 'a', 'word'],
      { home: '/h', json: false, prompt: '--json is a word' }
    ],
    [['run', '-z', '-', '--home', '/h'], { home: '/h', json: false, prompt: null }],
    [
      ['run', '--oneshot=hello there', '--profile=work', '--model', 'm'],
      { profile: 'work', model: 'm', prompt: 'hello there' }
    ],
    [['-z', 'hi', '--home', '-'], { home: '-', prompt: 'hi' }]
  ])('%j', (argv, want) => {
    expect(parseRunArgs(argv)).toMatchObject(want)
  })

  it('upstream top-level -z is a one-shot; a command word before it is not', () => {
    expect(isOneShot(['-z', 'hi'])).toBe(true)
    expect(isOneShot(['hi', '-z'])).toBe(true)
    expect(isOneShot(['cron', 'create', '-z'])).toBe(false)
    expect(isOneShot(['--', '-z'])).toBe(false)
  })
})

describe('helpFor', () => {
  const entries = (text: string) => text.split('\n').filter((l) => l.startsWith('  caduceus '))
  it("prints a command's own entries, one verb's when it has its own, and the note on DIR and profiles", () => {
    expect(entries(helpFor(['sessions', '--help'])).every((l) => l.startsWith('  caduceus sessions '))).toBe(true)
    expect(entries(helpFor(['sessions', '--help'])).length).toBeGreaterThan(8)
    expect(entries(helpFor(['--home', '/h', 'sessions', 'export', '-h']))).toEqual([
      expect.stringMatching(/^ {2}caduceus sessions export \[OUTPUT\|-\]/)
    ])
    expect(entries(helpFor(['-z', 'hi', '--help']))).toEqual([expect.stringMatching(/^ {2}caduceus run -z PROMPT/)])
    expect(helpFor(['serve', '--help'])).toMatch(/caduceus serve[^]*\n {2}DIR \(--home/)
    expect(helpFor(['cron', 'create', '--help'])).toBe(CRON_USAGE)
  })

  it('prints the whole overview for no command, help itself, or a command that does not exist', () => {
    expect(helpFor(['--help'])).toBe(USAGE)
    expect(helpFor(['help'])).toBe(USAGE)
    expect(helpFor(['sesions', '--help'])).toBe(USAGE)
  })
})

describe('each command takes its own flags (parseArgs)', () => {
  const line = (text: string) => text.split(' ').map((w) => w.replace('every_1h', 'every 1h'))
  it.each([
    [
      'sessions list --dry-run',
      /^sessions list does not take --dry-run \(sessions export, sessions prune, sessions archive do\)/
    ],
    ['sessions list --bogus', /^sessions list does not take --bogus; see caduceus sessions list --help$/],
    ['sessions list -y', /^sessions list does not take -y \(.*sessions delete.*\)/],
    ['sessions search heater --source cli', /^sessions search does not take --source/],
    ['sessions export --schedule 5m', /^sessions export does not take --schedule \(cron edit does\)/],
    ['sessions archive --source cli --include-archived', /^sessions archive does not take --include-archived/],
    ['sessions delete some-id --dry-run', /^sessions delete does not take --dry-run/],
    ['sessions prune --workspace x --yes', /^sessions prune does not take --workspace \(sessions list does\)/],
    ['sessions prune --accept-hooks', /^sessions prune does not take --accept-hooks \(cron does\)/],
    ['sessions stats --limit 5', /^sessions stats does not take --limit/],
    ['sessions --limit 5', /^sessions does not take --limit/],
    ['sessions list --port abc', /^sessions list does not take --port \(serve, api do\)/],
    ['cron list --skill x', /^cron list does not take --skill \(cron create, cron edit do\)/],
    ['cron --limit 3', /^cron does not take --limit/],
    ['cron create every_1h hi --prompt x', /^cron create does not take --prompt \(cron edit does\)/],
    ['cron create every_1h hi --schedule 5m', /^cron create does not take --schedule/],
    ['cron rm some-job --all', /^cron rm does not take --all \(cron list does\)/],
    ['cron status --lineage', /^cron status does not take --lineage \(sessions export does\)/],
    ['cron create every_1h hi --add-skill x', /^cron create does not take --add-skill \(cron edit does\)/],
    ['memory status --target user', /^memory status does not take --target \(memory reset does\)/],
    ['memory --yes', /^memory does not take --yes/],
    ['logs --port 5', /^logs does not take --port/],
    ['serve --all', /^serve does not take --all \(cron list does\)/],
    ['api --demo', /^api does not take --demo \(serve does\)/],
    ['api --rotate-token', /^api does not take --rotate-token/],
    ['sessions list --agent', /^sessions list does not take --agent \(cron edit does\); /],
    // upstream's short flags of other commands (`hermes logs -n`), or typos: refused as argparse refuses them
    ['sessions list -n 5', /^sessions list does not take -n; /],
    ['cron list -a', /^cron list does not take -a; /]
  ])('%s → exit 2 naming the flag and the command', (text, message) => {
    let thrown: unknown
    try {
      parseArgs(line(text))
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(UsageError)
    expect((thrown as Error).message).toMatch(message)
    expect((thrown as Error).message).not.toContain('\n')
  })

  it.each([
    'serve --port 0 --demo --rotate-token --allow-host x.example --host 127.0.0.1 --home /h',
    'api --host 127.0.0.1 --port 8642 -p work',
    'logs errors --limit 3',
    'logs --limit 3 --json',
    'sessions list --source cli --limit 5 --workspace repo --children --profile p --json',
    'sessions show some-id --limit 10 --json',
    'sessions search heater --limit 5 --children',
    'sessions export out.jsonl --session-id a --session b --format md --only user-prompts --lineage single --redact',
    'sessions export - --no-redact --upload --public --force --delete-after-verified -y --dry-run --source cli',
    'sessions export --archived --older-than 2d --model m',
    'sessions import f.jsonl --json',
    'sessions delete some-id --yes',
    'sessions rename some-id a title',
    'sessions stats --json',
    'sessions prune --older-than 5h --min-cost 1 --include-archived --archived --no-archived --dry-run -y --model m',
    'sessions archive --source cli --title t --branch b --dry-run --yes',
    'sessions optimize',
    'sessions repair --check-only --no-backup',
    'cron --all',
    'cron list --all --json --accept-hooks',
    'cron create every_1h hi --name n --repeat 2 --model m --deliver local --skill s --script x.py --no-agent --workdir /w',
    'cron add every_1h hi --name n',
    'cron edit some-job --schedule 5m --prompt p --name n --repeat 0 --model m --deliver origin --skill s',
    'cron pause some-job',
    'cron tick --accept-hooks --json',
    'cron run some-job --accept-hooks',
    'memory reset --target user --yes',
    'memory setup holographic',
    'memory approve all -p work'
  ])('%s is taken', (text) => {
    expect(() => parseArgs(line(text))).not.toThrow()
  })

  it("the app's own argv (no command) and an unknown command or verb are not judged here", () => {
    expect(parseArgs(['--home', '/h', '--demo', '--open', '--query', 'q', '--port', '5'])).toMatchObject({ demo: true })
    expect(() => parseArgs(['--agentt'])).toThrow(/^unknown flag --agentt$/)
    expect(parseArgs(['sesions', 'list', '--dry-run']).positionals).toEqual(['sesions', 'list'])
    expect(parseArgs(['sessions', 'bogus', '--dry-run']).positionals).toEqual(['sessions', 'bogus'])
    expect(() => parseArgs(['sessions', 'list', '--bogus=1'])).toThrow(/^sessions list does not take --bogus;/)
    // words that start with a dash but are no flag, as argparse reads them: stdout, a number, text with a space
    expect(parseArgs(['sessions', 'rename', 'id', '-draft title', '-5', '-']).positionals.slice(3)).toEqual([
      '-draft title',
      '-5',
      '-'
    ])
  })
})
