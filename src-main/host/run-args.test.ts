// `run -z` / `-z` argument lines through the check bin/caduceus.mjs runs before the host loads (oneShotUsageError)
// and the parser the one-shot uses. A few lines also go through the real entry: test/cli-run.test.ts.
import { describe, expect, it } from 'vitest'
import { isOneShot, parseRunArgs } from './run-args'
import { oneShotUsageError, USAGE } from './usage'

describe('run -z usage errors (exit 2 before anything is sent)', () => {
  it.each([
    [['run', '-z', 'hi', '--bogus', '--home', '/h'], 'caduceus run: unknown option --bogus for run'],
    [['-z', 'hi', '--home', '/h', '--model'], 'caduceus run: --model needs a value'],
    [['-z', '--home', '--json', 'hi'], 'caduceus run: --home needs a value'],
    [
      ['run', '-z', '-', 'and', 'words', '--home', '/h'],
      'caduceus run: give the prompt as words or as - (stdin), not both'
    ],
    [['run', '-z', 'hi', '--usage-file='], 'caduceus run: --usage-file needs a value']
  ])('%j → %s', (argv, message) => {
    expect(oneShotUsageError(argv)).toBe(message)
  })

  it('the usage printed with them names the one-shot form', () => {
    expect(USAGE).toContain('caduceus run -z PROMPT')
  })

  it('help and other commands are never a one-shot usage error', () => {
    expect(oneShotUsageError(['run', '-z', 'hi', '--bogus', '-h'])).toBeNull()
    expect(oneShotUsageError(['sessions', 'list', '--bogus'])).toBeNull()
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
