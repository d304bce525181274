/**
 * Which table rows the commits since the watcher's last diff can have changed, read from the WAL file itself: every
 * commit appends the pages it wrote as frames, so the rowids held by the table-leaf pages among the new frames name
 * every row whose stored bytes changed (a row lives in exactly one leaf cell, plus the overflow pages its cell points
 * to). The watcher then compares those rows with its snapshot instead of every session (watcher-prints.ts); a deleted
 * row leaves no cell to read, so deletions are still found by the snapshot's row count.
 *
 * A WAL restarted since (new salts, after a checkpoint) is read from its first frame when the restart lost nothing:
 * the wal-index's change counter (iChange, which SQLite increments at every commit and never at a restart) has moved
 * by exactly the commits among the new generation's frames, and the first salt by one (one restart). Otherwise a
 * commit before the restart wrote frames nobody read, now checkpointed and overwritten.
 *
 * Anything this cannot vouch for answers null, and the watcher compares every row as before: a home not in WAL mode,
 * a WAL restarted with commits lost (above), a wal-index it cannot read
 * consistently, too many frames, or any written page that is neither a b-tree page nor an overflow page reached from
 * a leaf cell among the same frames or the freelist (a row rewritten in place with a value of the same size writes
 * only the overflow page that changed; a pointer-map page; a freelist page below a trunk the frames did not write).
 *
 * Layout (SQLite's file format): the WAL has a 32-byte header (page size at 8, salts at 16) and then frames of a
 * 24-byte header (page number at 0, salts at 8) and one page. The -shm wal-index starts with two copies of a 48-byte
 * header in native byte order (iChange at 8, isInit at 12, mxFrame at 16, the salts at 32 as the WAL header has
 * them), which agree
 * whenever no writer is halfway through updating them.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { endianness } from 'node:os'
import { fileAt } from './open'

/** Frames past this many since the last diff (a VACUUM, an import): comparing every row is cheaper. */
const MAX_FRAMES = 1000
const LE = endianness() === 'LE'

/** Where the WAL stood: its generation (salts) and how many of its frames are committed. */
export interface WalMark {
  salts: Buffer
  frames: number
  /** The database's size in pages (the wal-index's nPage). */
  pages: number
  /** Commits so far (the wal-index's iChange, modulo 2^32; restarts leave it). */
  commits: number
}

/** A database file's descriptors (state.db and its -shm) in this process, and how many watchers hold them. */
interface Fds {
  db: number | null
  shm: number | null
  shmId: string
  /** Descriptors of an -shm that was replaced (never while this process's connections hold it): closed with the rest. */
  stale: number[]
  holders: number
}

/**
 * This process's descriptors per database file (`dev:ino`), shared by every watcher on that file: POSIX drops every
 * lock a process holds on a file when any of its descriptors on that file closes, SQLite's included, so they are
 * closed only once the last watcher on the file has let go (two hosts of one process on one home — the tests do it —
 * must not drop each other's locks). Process-wide because the locks are.
 */
const open = new Map<string, Fds>()

/**
 * Descriptors on state.db and its -shm, kept open until the store closes (`close`): SQLite's own locks on those files
 * (the -shm's reader marks, the database's shared lock) belong to this process, and POSIX drops all of them when any
 * descriptor on the file closes, so one opened and closed per read would let another program checkpoint away or
 * delete a WAL this process's connections still read. Opened once per file, on the file the watcher's connection has.
 */
export class WalFiles {
  private fds: Fds | null

  constructor(
    readonly dbPath: string,
    /** `dev:ino` of the file the watcher's connection has open. */
    readonly fileId: string
  ) {
    const fds = entryOf(fileId)
    fds.holders++
    this.fds = fds
  }

  /** `length` bytes of state.db at `position` (null when the path names another file by now). */
  readDb(length: number, position: number): Buffer | null {
    const fds = this.fds
    if (!fds) return null
    if (fds.db === null) {
      const fd = openOrNull(this.dbPath)
      if (fd === null) return null
      const id = idOf(fd)
      // The path names another file by now (a restore renamed one over it): that file's descriptor, not ours.
      if (id !== this.fileId) {
        park(fd, id, 'db')
        return null
      }
      fds.db = fd
    }
    return preadFull(fds.db, length, position)
  }

  /** `length` bytes of the -shm at `position`, from the -shm the path names now. */
  readShm(length: number, position: number): Buffer | null {
    const fds = this.fds
    if (!fds) return null
    let now: string
    try {
      const st = statSync(`${this.dbPath}-shm`)
      now = `${st.dev}:${st.ino}`
    } catch {
      return null // no -shm: not a WAL home now
    }
    if (fds.shm === null || now !== fds.shmId) {
      // The -shm beside the path is this file's only while the path names this file, before and after the open; a
      // swapped-in file's -shm is kept with that file's descriptors (the store's new connection holds locks on it).
      if (fileIdAt(this.dbPath) !== this.fileId) return null
      const fd = openOrNull(`${this.dbPath}-shm`)
      if (fd === null) return null
      const owner = fileIdAt(this.dbPath)
      if (owner !== this.fileId) {
        if (owner) park(fd, owner, 'stale')
        else fds.stale.push(fd) // no file at the path: the -shm of ours, deleted (closed with ours)
        return null
      }
      if (fds.shm !== null) fds.stale.push(fds.shm)
      fds.shm = fd
      fds.shmId = idOf(fd)
      if (fds.shmId !== now) return null // replaced again meanwhile: the next read opens that one
    }
    return preadFull(fds.shm, length, position)
  }

  /**
   * This watcher lets go (its store's connection closed, or the store moved to another file); the descriptors close
   * with the last watcher on the file, when nothing of this process holds SQLite locks on it through a watcher's store.
   */
  close(): void {
    const fds = this.fds
    if (!fds) return
    this.fds = null
    if (--fds.holders > 0) return
    open.delete(this.fileId)
    for (const fd of [fds.db, fds.shm, ...fds.stale]) if (fd !== null) closeSync(fd)
  }
}

function entryOf(fileId: string): Fds {
  let fds = open.get(fileId)
  if (!fds) open.set(fileId, (fds = { db: null, shm: null, shmId: '', stale: [], holders: 0 }))
  return fds
}

/** Another file's descriptor opened by a read that raced a swap: kept with that file's, closed with them. */
function park(fd: number, fileId: string, as: 'db' | 'stale'): void {
  const fds = entryOf(fileId)
  if (as === 'db' && fds.db === null) fds.db = fd
  else fds.stale.push(fd)
}

const idOf = (fd: number) => {
  const st = fstatSync(fd)
  return `${st.dev}:${st.ino}`
}

/** The identity of the file at `path` now, as the store's `fileAt` gives it; null when none can be told. */
function fileIdAt(path: string): string | null {
  try {
    return fileAt(path)?.id ?? null
  } catch {
    return null // unreadable: not the watched file (the watcher compares every row)
  }
}

function openOrNull(path: string): number | null {
  try {
    return openSync(path, 'r')
  } catch {
    return null // not there (yet): the watcher compares every row
  }
}

function preadFull(fd: number, length: number, position: number): Buffer | null {
  const buf = Buffer.alloc(length)
  try {
    return readSync(fd, buf, 0, length, position) === length ? buf : null
  } catch {
    return null // unreadable: the watcher compares every row
  }
}

/** The committed frames of the WAL now, from the wal-index header (null when it cannot be read consistently). */
export function walMark(files: WalFiles): WalMark | null {
  for (let attempt = 0; attempt < 3; attempt++) {
    const hdr = files.readShm(96, 0)
    if (!hdr) return null
    if (!hdr.subarray(0, 48).equals(hdr.subarray(48, 96)) || hdr[12] !== 1) continue // a writer mid-update
    const frames = LE ? hdr.readUInt32LE(16) : hdr.readUInt32BE(16)
    const pages = LE ? hdr.readUInt32LE(20) : hdr.readUInt32BE(20)
    const commits = LE ? hdr.readUInt32LE(8) : hdr.readUInt32BE(8)
    return { salts: Buffer.from(hdr.subarray(32, 40)), frames, pages, commits }
  }
  return null
}

const varint = (b: Buffer, at: number): [value: number, next: number] => {
  let v = 0
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i]!
    v = v * 128 + (byte & 0x7f)
    if (byte < 0x80) return [v, at + i + 1]
  }
  return [v * 256 + b[at + 8]!, at + 9]
}

/** B-tree page kinds by their first header byte: index interior/leaf, table interior/leaf. */
const TABLE_LEAF = 0x0d
const BTREE = new Set([0x02, 0x05, 0x0a, TABLE_LEAF])

/**
 * The rowids of every table-leaf page the frames after `since` (up to those committed now) wrote, or null when they
 * cannot be told. Called inside the read transaction the diff then runs in, after its first read: the frames up to
 * the wal-index's count now include every one that snapshot sees (later ones are committed too, and only widen it).
 */
export function rowidsWritten(files: WalFiles, since: WalMark): number[] | null {
  const now = walMark(files)
  if (!now) return null
  // Restarted once (the first salt, big-endian as in the WAL header, one more): the new generation from its first
  // frame, provided its commits are all the commits since (checked against its frames below).
  const restarted = !now.salts.equals(since.salts)
  if (restarted && now.salts.readUInt32BE(0) !== (since.salts.readUInt32BE(0) + 1) >>> 0) return null
  const from = restarted ? { ...now, frames: 0 } : since
  if (now.frames < from.frames) return null
  const count = now.frames - from.frames
  const commits = restarted ? (now.commits - since.commits) >>> 0 : null
  if (count === 0) return commits ? null : []
  // An overflow page starts with the next one's number: below 2^25 pages its first byte (0 or 1) is never a b-tree
  // page's kind, which is what tells the two apart here.
  if (count > MAX_FRAMES || now.pages >= 0x2000000) return null
  // The -wal is opened once per check: SQLite takes no lock on it, so closing this descriptor drops none (state.db and
  // its -shm, where its locks are, are read through `WalFiles`). Not there: not a WAL home now, nothing to vouch for.
  const wal = openOrNull(`${files.dbPath}-wal`)
  if (wal === null) return null
  try {
    return rowidsInFrames(files, from, count, wal, commits)
  } finally {
    closeSync(wal)
  }
}

/**
 * rowidsWritten's reading of the `count` frames after `since` in the -wal open as `wal`; `commits`: how many commit
 * frames they must hold (a restarted WAL's), else null.
 */
function rowidsInFrames(
  files: WalFiles,
  since: WalMark,
  count: number,
  wal: number,
  commits: number | null
): number[] | null {
  const header = preadFull(wal, 32, 0)
  if (!header || !header.subarray(16, 24).equals(since.salts)) return null
  const raw = header.readUInt32BE(8)
  const pageSize = raw === 1 ? 65536 : raw
  const frameSize = 24 + pageSize
  // Every version of every page the frames wrote (a page written twice: both versions are read).
  const pages = new Map<number, Buffer[]>()
  const buf = preadFull(wal, count * frameSize, 32 + since.frames * frameSize)
  if (!buf) return null
  let ends = 0
  for (let i = 0; i < count; i++) {
    const frame = buf.subarray(i * frameSize, (i + 1) * frameSize)
    if (!frame.subarray(8, 16).equals(since.salts)) return null // a frame of another generation: restarted
    if (frame.readUInt32BE(4) !== 0) ends++ // a commit's last frame holds the database's size after it
    const pgno = frame.readUInt32BE(0)
    const list = pages.get(pgno) ?? []
    list.push(frame.subarray(24))
    pages.set(pgno, list)
  }
  // The header copy is read again: a restart rewrites it before any frame, so unchanged salts mean no frame read
  // above was being overwritten.
  if (!preadFull(wal, 32, 0)?.subarray(16, 24).equals(since.salts)) return null
  if (commits !== null && ends !== commits) return null // a commit before the restart is not among these frames
  // Bytes each page reserves at its end (the database header's byte 20), which set where a cell's overflow begins.
  const reserved = pages.get(1)?.[0]?.[20] ?? files.readDb(1, 20)?.[0]
  if (reserved === undefined) return null
  const usable = pageSize - reserved
  const rowids = new Set<number>()
  const owned = new Set<number>()
  /** An overflow chain from its first page, through every version of each of its pages the frames hold. */
  const follow = (first: number) => {
    const queue = [first]
    while (queue.length) {
      const pg = queue.pop()!
      if (pg === 0 || owned.has(pg)) continue
      owned.add(pg)
      // A page the frames did not write is unchanged, and so is its pointer to the next one.
      for (const version of pages.get(pg) ?? []) queue.push(version.readUInt32BE(0))
    }
  }
  for (const [pgno, versions] of pages)
    for (const page of versions) {
      const at = pgno === 1 ? 100 : 0 // page 1 starts with the database header
      if (page[at] !== TABLE_LEAF) continue
      const cells = page.readUInt16BE(at + 3)
      for (let c = 0; c < cells; c++) {
        const cell = page.readUInt16BE(at + 8 + c * 2)
        if (cell + 2 > pageSize) return null // not a page this reading understands
        const [payload, afterSize] = varint(page, cell)
        const [rowid, body] = varint(page, afterSize)
        rowids.add(rowid)
        const local = localPayload(payload, usable)
        if (local < payload) {
          if (body + local + 4 > pageSize) return null
          follow(page.readUInt32BE(body + local))
        }
      }
    }
  // The freelist's trunk pages (the first at the database header's offset 32, each naming the next) hold page numbers,
  // never a row: taking a free page, or freeing one, rewrites one and the header. Those the frames wrote also name
  // their free leaf pages, which a commit may write too (a page it took and gave back) and which hold no row either:
  // a page that held a row is freed only by a commit that also rewrites or deletes that row's cell.
  const trunks = (pages.get(1) ?? []).map((header) => header.readUInt32BE(32))
  while (trunks.length) {
    const pg = trunks.pop()!
    if (pg === 0 || owned.has(pg)) continue
    owned.add(pg)
    for (const version of pages.get(pg) ?? []) {
      const leaves = version.readUInt32BE(4)
      if (8 + leaves * 4 > usable) return null // not a trunk page this reading understands
      for (let i = 0; i < leaves; i++) owned.add(version.readUInt32BE(8 + i * 4))
      trunks.push(version.readUInt32BE(0))
    }
  }
  for (const [pgno, versions] of pages) {
    if (owned.has(pgno)) continue
    for (const page of versions) if (!BTREE.has(page[pgno === 1 ? 100 : 0]!)) return null
  }
  return [...rowids]
}

/** The bytes of a table-leaf cell's payload stored on the page itself (the rest is in overflow pages). */
function localPayload(payload: number, usable: number): number {
  const max = usable - 35
  if (payload <= max) return payload
  const min = Math.floor(((usable - 12) * 32) / 255) - 23
  const k = min + ((payload - min) % (usable - 4))
  return k <= max ? k : min
}
