/**
 * Python's `Path(p).expanduser()`, which upstream's fact store applies to its db_path: a first part `~` is the
 * user's home (`$HOME`, else the password database), `~NAME` is NAME's home from the password database, and a name
 * the database does not know raises "Could not determine home directory." A `~` anywhere else stays as written.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { homedir, userInfo } from 'node:os'

const known = new Map<string, string | null>()

/** NAME's home as `pwd.getpwnam(NAME).pw_dir` gives it: /etc/passwd, else NSS through getent (LDAP, sssd…). */
function passwdHome(name: string): string | null {
  if (known.has(name)) return known.get(name)!
  let home: string | null = null
  try {
    if (name === userInfo().username) home = userInfo().homedir
  } catch {
    // no entry for this process's uid: look the name up below
  }
  const fromLine = (text: string) =>
    text
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => f.length >= 7 && f[0] === name)?.[5] ?? null
  try {
    home ??= fromLine(readFileSync('/etc/passwd', 'utf8'))
  } catch {
    // no /etc/passwd: getent below
  }
  try {
    home ??= fromLine(execFileSync('getent', ['passwd', name], { encoding: 'utf8', timeout: 5000, stdio: 'pipe' }))
  } catch {
    // getent exits 2 for a name it does not know (or is not installed): no such user
  }
  known.set(name, home)
  return home
}

/** The home `~NAME` names on Windows as ntpath has it: a sibling of the current user's home, named NAME. */
const windowsHome = (name: string) => {
  const mine = homedir()
  return name === '' || name === basename(mine) ? mine : join(dirname(mine), name)
}

class NoHomeError extends Error {}

/** `path` with a leading `~` / `~NAME` expanded as Python does; throws where Python's expanduser raises. */
export function expandUser(path: string): string {
  if (!path.startsWith('~')) return path
  const win = process.platform === 'win32'
  const end = win ? path.search(/[\\/]/) : path.indexOf('/')
  const first = end === -1 ? path : path.slice(0, end)
  const rest = end === -1 ? '' : path.slice(end)
  const name = first.slice(1)
  const home = win ? windowsHome(name) : name === '' ? homedir() : passwdHome(name)
  if (home === null) throw new NoHomeError('Could not determine home directory.')
  // posixpath strips the home's trailing slashes and takes '/' for a home that was only slashes.
  return home.replace(/\/+$/, '') + rest || '/'
}
