// `run -z` / `-z` argument lines through the parser bin/caduceus.mjs checks before the host loads (its
// oneShotUsageError prefixes the message with "caduceus run: " and exits 2 with the usage; the one-shot itself parses
// with it too). Representative lines also go through the real entry: test/cli-run.test.ts. Also what --help prints for
// the command it is on (helpFor) and the refusal of an argument that is not UTF-8 (nonUtf8Argument).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isOneShot, parseRunArgs, UsageError } from './run-args'
import { CRON_USAGE, helpFor, nonUtf8Argument, USAGE, wantsHelp } from './usage'

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

// The arguments' own bytes decide whether one is refused as not UTF-8 (Node's argv strings have lost them).
const dir = mkdtempSync(join(tmpdir(), 'cad-cmdline-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A cmdline file as the kernel writes it: each word NUL-terminated. */
const cmdline = (...words: Array<string | Buffer>) => {
  const file = join(dir, `cmdline-${Math.random()}`)
  writeFileSync(file, Buffer.concat(words.flatMap((w) => [Buffer.from(w), Buffer.from([0])])))
  return file
}

describe('nonUtf8Argument', () => {
  it('refuses the first argument whose bytes are not UTF-8, naming its place; node and its options are not read', () => {
    const file = cmdline(
      Buffer.from([0x6e, 0xff]),
      '--opt',
      'bin/caduceus.mjs',
      'sessions',
      'rename',
      'id',
      Buffer.from([0x74, 0xff, 0x65])
    )
    expect(nonUtf8Argument(4, file)).toBe('caduceus: argument 4 ("t\uFFFDe") is not UTF-8 text; give it in UTF-8')
    expect(nonUtf8Argument(3, file)).toMatch(/^caduceus: argument 3 /)
  })

  it('takes UTF-8 text, a U+FFFD typed on purpose among it, and an empty argument; no cmdline file refuses nothing', () => {
    const file = cmdline('node', 'bin/caduceus.mjs', 'sessions', 'search', 'café 東京 \uFFFD', '')
    expect(nonUtf8Argument(4, file)).toBeNull()
    expect(nonUtf8Argument(0, file)).toBeNull()
    expect(nonUtf8Argument(2, join(dir, 'absent'))).toBeNull()
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
