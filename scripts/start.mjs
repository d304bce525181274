// `npm start`: open the Electron app where an Electron binary exists; otherwise say so in one line and
// serve the same UI headless (toolchain.md §7).
import { spawnSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const run = (cmd, cmdArgs, opts = {}) => spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...opts }).status ?? 1

/** Newest mtime under the source folders, so a stale build is rebuilt instead of silently served. */
function newestSource() {
  let newest = 0
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) walk(p)
      else newest = Math.max(newest, statSync(p).mtimeMs)
    }
  }
  for (const dir of ['src-main', 'src-renderer', 'shared']) if (existsSync(join(root, dir))) walk(join(root, dir))
  return newest
}
const built = join(root, 'out/renderer/index.html')
if (!existsSync(built) || statSync(built).mtimeMs < newestSource() || process.env.CADUCEUS_REBUILD) {
  if (run('npx', ['electron-vite', 'build']) !== 0) process.exit(1)
}

function electronBinary() {
  const pkg = join(root, 'node_modules/electron')
  const pathFile = join(pkg, 'path.txt')
  if (!existsSync(pathFile)) return null
  const bin = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(bin) ? bin : null
}

/** better-sqlite3 compiled for Electron's ABI, kept beside (not instead of) the Node build the tests use. */
function electronSqliteBinding(electronVersion) {
  const dir = join(root, '.native', `electron-${electronVersion}`)
  const binding = join(dir, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')
  if (existsSync(binding)) return binding
  mkdirSync(dir, { recursive: true })
  const require = createRequire(import.meta.url)
  const version = require(join(root, 'node_modules/better-sqlite3/package.json')).version
  console.log(`Preparing better-sqlite3 ${version} for Electron ${electronVersion} (once)…`)
  const ok =
    run(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        `better-sqlite3@${version}`,
        `--runtime=electron`,
        `--target=${electronVersion}`,
        '--disturl=https://electronjs.org/headers',
        '--build-from-source'
      ],
      { cwd: dir }
    ) === 0
  return ok && existsSync(binding) ? binding : null
}

const bin = electronBinary()
if (bin) {
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version
  const binding = electronSqliteBinding(electronVersion)
  if (binding) {
    const child = spawn(bin, [join(root, 'out/main/index.js'), ...args], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, CADUCEUS_SQLITE_BINDING: binding }
    })
    child.on('exit', (code) => process.exit(code ?? 0))
  } else {
    console.log('Could not build better-sqlite3 for Electron here; serving the same UI headless instead.')
    process.exit(run('node', ['bin/caduceus.mjs', 'serve', ...args]))
  }
} else {
  console.log(
    'No Electron binary on this machine (it cannot be downloaded here); serving the same UI headless instead.'
  )
  process.exit(run('node', ['bin/caduceus.mjs', 'serve', ...args]))
}
