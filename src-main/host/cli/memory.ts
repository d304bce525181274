/**
 * `caduceus memory status|setup|off|reset`, as `hermes memory …`: which external provider config.yaml names
 * (`memory.provider`, written through the same request as the app's picker, so upstream's loader picks the same
 * one), and erasing the built-in MEMORY.md / USER.md. Upstream's setup is an interactive picker and wizard; here
 * the provider is named on the line (`setup PROVIDER`), which is what `hermes memory setup PROVIDER` does for a
 * provider without a setup hook: activate it, nothing else.
 */
import { join } from 'node:path'
import { isPlainObject, loadConfig } from '../../config'
import { removeMemoryFile } from '../../memory'
import { statIfExists } from '../../files'
import type { HostArgs } from './args'
import { createHost } from '../compose'
import { confirm } from './by-filter'
import { call } from './call'
import { profileHome } from './profile'
import { redact } from '../log'
import { UsageError } from './run-args'
import { errorMessage } from '@shared/contract/errors'

export const MEMORY_USAGE = `caduceus memory [status]                 the external provider config.yaml names, and the ones to pick from
caduceus memory setup PROVIDER          activate PROVIDER (memory.provider in config.yaml); builtin = none.
                                        Not interactive: upstream's picker and wizard become this one argument
caduceus memory off                     built-in memory only (MEMORY.md / USER.md)
caduceus memory reset [--target all|memory|user] [--yes|-y]   erase the built-in memory files (asks unless --yes)
caduceus memory pending                 the agent's writes staged for approval (memory.write_approval)
caduceus memory approve ID|all          apply staged writes to MEMORY.md / USER.md (hermes: /memory approve)
caduceus memory reject ID|all           drop staged writes unapplied (hermes: /memory reject)
  (all with [--home DIR] [--profile P])`

const TARGETS = { memory: ['memory'], user: ['user'], all: ['memory', 'user'] } as const
const FILES = { memory: ['MEMORY.md', 'agent notes'], user: ['USER.md', 'user profile'] } as const

const DECISIONS = ['pending', 'approve', 'reject']

class MemoryUsageError extends Error {}

/** Returns the exit code: 2 for a usage error, as upstream's argparse. */
export async function memory(args: HostArgs): Promise<number> {
  const [, sub, name, extra] = args.positionals
  const verb = sub ?? 'status' // `hermes memory` alone shows the status
  try {
    if (!['status', 'setup', 'off', 'reset', ...DECISIONS].includes(verb))
      throw new MemoryUsageError(`unknown verb '${verb}'`)
    const named = verb === 'setup' || verb === 'approve' || verb === 'reject'
    if (extra !== undefined || (name !== undefined && !named))
      throw new MemoryUsageError(`unexpected argument '${extra ?? name}'`)
    if (verb === 'setup' && name === undefined)
      throw new MemoryUsageError('memory setup needs the PROVIDER to activate (no interactive picker here)')
    if ((verb === 'approve' || verb === 'reject') && name === undefined)
      throw new MemoryUsageError(`memory ${verb} needs the ID of a staged write (or all): see caduceus memory pending`)
    if (verb === 'reset') return await reset(args)
    if (DECISIONS.includes(verb)) return await pending(args, verb, name)
    return await providerVerb(args, verb, name)
  } catch (err) {
    if (err instanceof MemoryUsageError) {
      console.error(`caduceus memory: ${err.message}\n\n${MEMORY_USAGE}`)
      return 2
    }
    if (err instanceof UsageError) throw err // a flag's value the request refuses: main's usage exit
    // A change the host refuses (config.yaml not writable) reads as this command's other failures do.
    console.error(`caduceus memory: ${redact(errorMessage(err))}`)
    return 1
  }
}

async function providerVerb(args: HostArgs, verb: string, name: string | undefined): Promise<number> {
  const { profile, home } = profileHome(args)
  const host = await createHost({ home: args.home, demo: false, headless: true, live: false })
  try {
    const state = await call(host, 'memory.providers', { profile })
    if (state.configError) {
      console.error(`caduceus memory: ${state.configError.message}`)
      return 1
    }
    if (verb === 'status') {
      status(home, state)
      return 0
    }
    if (verb === 'off' || name === 'builtin') {
      await call(host, 'memory.setProvider', { profile, provider: null })
      console.log('\n  ✓ Memory provider: built-in only\n  Saved to config.yaml\n')
      return 0
    }
    const choice = state.choices.find((c) => c.name === name)
    if (!choice) {
      console.error(
        `\n  Memory provider '${name}' not found.\n  Run 'caduceus memory status' to see the ones to pick from.\n`
      )
      return 1
    }
    if (choice.kind === 'unsupported') {
      // Upstream would activate it; Caduceus's turns would then run without it, so it is not written from here.
      console.error(
        `\n  Memory provider '${name}' is one of upstream's plugins, which Caduceus cannot run; nothing was changed.\n` +
          `  (hermes memory setup ${name} sets it up for upstream.)\n`
      )
      return 1
    }
    const after = await call(host, 'memory.setProvider', { profile, provider: choice.name })
    console.log(`\n  Memory provider: ${choice.name}\n  Activation saved to config.yaml\n`)
    if (after.availability && !after.availability.available)
      console.error(`caduceus memory: warning: ${after.availability.detail ?? `${choice.name} is not available yet`}`)
    return 0
  } finally {
    await host.close()
  }
}

type State = Awaited<ReturnType<typeof call<'memory.providers'>>>

/** Upstream's status lines; "Plugin" says whether Caduceus can run the provider, "Status" whether it can now. */
function status(home: string, state: State): void {
  const name = state.configured
  const lines = ['', 'Memory status', '─'.repeat(40), '  Built-in:  always active']
  lines.push(`  Provider:  ${name ?? '(none — built-in only)'}`)
  if (name) {
    const section = (loadConfig(home).raw.memory as Record<string, unknown> | undefined)?.[name]
    if (isPlainObject(section) && Object.keys(section).length) {
      lines.push('', `  ${name} config:`)
      for (const [k, v] of Object.entries(section))
        lines.push(`    ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    }
    const choice = state.choices.find((c) => c.name === name)
    if (!choice) lines.push('', '  Plugin:    NOT installed ✗', `  Install the '${name}' memory plugin first`)
    else if (choice.kind === 'unsupported') lines.push('', "  Plugin:    upstream's, not supported by Caduceus ✗")
    else {
      lines.push('', '  Plugin:    installed ✓')
      const a = state.availability
      if (a?.available) lines.push('  Status:    available ✓')
      else if (a) lines.push('  Status:    not available ✗', ...(a.detail ? [`    ${a.detail}`] : []))
    }
  }
  const usable = state.choices.filter((c) => c.kind !== 'unsupported')
  if (usable.length) {
    lines.push('', '  Installed plugins:')
    for (const c of usable) lines.push(`    • ${c.name}  (${c.description})${c.name === name ? ' ← active' : ''}`)
  }
  console.log(`${lines.join('\n')}\n`)
}

async function reset(args: HostArgs): Promise<number> {
  const target = args.memoryTarget ?? 'all'
  if (!(target in TARGETS)) throw new MemoryUsageError(`--target takes all, memory or user, not '${target}'`)
  const { home } = profileHome(args)
  const dir = join(home, 'memories')
  const existing = TARGETS[target as keyof typeof TARGETS].flatMap((t) => {
    const stat = statIfExists(join(dir, FILES[t][0]))
    return stat ? [{ t, size: stat.size }] : []
  })
  if (!existing.length) {
    console.log(`\n  Nothing to reset — no memory files found in ${dir}/\n`)
    return 0
  }
  console.log('\n  This will permanently erase the following memory files:')
  for (const { t, size } of existing)
    console.log(`    ◆ ${FILES[t][0]} (${FILES[t][1]}) — ${size.toLocaleString('en-US')} bytes`)
  if (args.prune?.yes !== true && !(await confirm("\n  Type 'yes' to confirm: ", 'yes'))) {
    console.log('  Cancelled.\n')
    return 0
  }
  for (const { t } of existing)
    if (await removeMemoryFile(home, t)) console.log(`  ✓ Deleted ${FILES[t][0]} (${FILES[t][1]})`)
  console.log(`\n  Memory reset complete. New sessions will start with a blank slate.\n  Files were in: ${dir}/\n`)
  return 0
}

/** `memory pending|approve|reject`: the staged writes upstream's `/memory pending` reviews, through the app's requests. */
async function pending(args: HostArgs, verb: string, id: string | undefined): Promise<number> {
  const { profile } = profileHome(args)
  const host = await createHost({ home: args.home, demo: false, headless: true, live: false })
  try {
    // the list itself only where it is shown or every write is decided
    const { items } =
      verb === 'pending' || id === 'all' ? await call(host, 'memory.pending', { profile }) : { items: [] }
    if (verb === 'pending') {
      if (!items.length) console.log('No memory writes wait for approval.')
      else {
        console.log(`Memory writes waiting for approval (${items.length}):`)
        for (const w of items) {
          const what = 'problem' in w ? `(cannot be applied: ${w.problem})` : w.summary
          const tag = 'origin' in w && w.origin === 'background_review' ? ' [background review]' : ''
          console.log(`  ${w.id}${tag}  ${what.replace(/\n/g, '\n    ')}`)
        }
        console.log('\nApply: caduceus memory approve ID|all   Drop: caduceus memory reject ID|all')
      }
      return 0
    }
    const decision = verb as 'approve' | 'reject'
    const ids = id === 'all' ? items.map((w) => w.id) : [id!]
    if (!ids.length) {
      console.log('No memory writes wait for approval.')
      return 0
    }
    let failed = 0
    for (const one of ids) {
      try {
        const r = await call(host, 'memory.decidePending', { profile, id: one, decision })
        if (r.error) throw new Error(r.error)
        console.log(`${decision === 'approve' ? 'Applied' : 'Dropped'} staged memory write ${one}.`)
      } catch (err) {
        failed++
        console.error(`caduceus memory: ${one}: ${redact(errorMessage(err))}`)
      }
    }
    return failed ? 1 : 0
  } finally {
    await host.close()
  }
}
