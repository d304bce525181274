// `run -z` / `-z` argument lines through the parser bin/caduceus.mjs checks before the host loads (its
// oneShotUsageError prefixes the message with "caduceus run: " and exits 2 with the usage; the one-shot itself parses
// with it too). Representative lines also go through the real entry: test/cli-run.test.ts. Also what --help prints for
// the command it is on (helpFor); the refusal of an argument that is not UTF-8 is test/cli-run.test.ts's (a real argv).
import { describe, expect, it } from 'vitest'
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
