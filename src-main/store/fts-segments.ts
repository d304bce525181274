/**
 * Which rows an FTS5 index took in since an earlier state of it, read from its own segments (SQLite's fts5 format),
 * without reading a message. Upstream's triggers write the index at every INSERT, UPDATE and DELETE of a message
 * (rowid = message id), FTS5 writes each commit's changes to a new segment, and a merge writes its input's entries to
 * a new segment again: so every rowid a commit touched since the earlier state is in a segment that state did not
 * hold (new, or grown), which the structure record (`<index>_data` id 10) lists.
 *
 * Layout: the structure record is a 4-byte cookie, an optional 4-byte v2 marker, varints nLevel, nSegment, the write
 * counter (v2: the origin counter), then per level nMerge, nSeg and per segment segid, first and last leaf page (v2:
 * origins, tombstone pages and entries). A leaf page (`_data` id segid << 37 | pgno) starts with two big-endian u16:
 * where its first rowid is (0: none), and where its page index begins (varints: where each term starts, deltas after
 * the first); a term's doclist, and the page's first rowid, start with an absolute rowid, each next one a delta after
 * a position list (a varint of size * 2 + delete flag, then that many bytes), which may run on into the next page.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'

/** A segment as the structure record lists it, and a hash of its last leaf page (withTails). */
export interface Segment {
  id: number
  first: number
  last: number
  tail?: string
}

/** A leaf page's `_data` id. */
const leafId = (segment: number, page: number) => (BigInt(segment) << 37n) + BigInt(page)

const varint = (b: Buffer, at: number): [value: number, next: number] => {
  let v = 0
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i]
    if (byte === undefined) throw new RangeError('truncated varint')
    v = v * 128 + (byte & 0x7f)
    if (byte < 0x80) return [v, at + i + 1]
  }
  return [v * 256 + (b[at + 8] ?? 0), at + 9]
}

const V2 = Buffer.from([0xff, 0x00, 0x00, 0x01])

/** The segments of FTS5 index `fts` (its structure record), or null when it has none this reading understands. */
export function ftsSegments(db: Database.Database, fts: string): Segment[] | null {
  const block = stmt<Buffer | null>(db, `SELECT block FROM main.${fts}_data WHERE id = 10`).pluck().get()
  if (!block) return null
  try {
    let at = 4
    const v2 = block.subarray(4, 8).equals(V2)
    if (v2) at += 4
    let levels: number
    ;[levels, at] = varint(block, at)
    ;[, at] = varint(block, at) // segments in all
    ;[, at] = varint(block, at) // write counter
    if (v2) [, at] = varint(block, at) // origin counter
    const out: Segment[] = []
    for (let l = 0; l < levels; l++) {
      let count: number
      ;[, at] = varint(block, at) // nMerge
      ;[count, at] = varint(block, at)
      for (let s = 0; s < count; s++) {
        let id: number, first: number, last: number
        ;[id, at] = varint(block, at)
        ;[first, at] = varint(block, at)
        ;[last, at] = varint(block, at)
        if (v2) {
          let tombstones: number
          ;[, at] = varint(block, at)
          ;[, at] = varint(block, at)
          ;[tombstones, at] = varint(block, at)
          ;[, at] = varint(block, at)
          ;[, at] = varint(block, at)
          if (tombstones) return null // deletes kept apart (contentless-delete tables): not read here
        }
        if (last < first || id < 1 || id > 0xffff) return null
        out.push({ id, first, last })
      }
    }
    return out
  } catch {
    return null // truncated: not a record this reading understands
  }
}

/** `segments` with the hash of each one's last leaf page: a segment id is reused once its segment is merged away. */
export function withTails(db: Database.Database, fts: string, segments: readonly Segment[]): Segment[] {
  const read = stmt<Buffer | null>(db, `SELECT block FROM main.${fts}_data WHERE id = ?`).pluck()
  return segments.map((s) => {
    const page = read.get(leafId(s.id, s.last))
    return { ...s, tail: page ? createHash('sha1').update(page).digest('hex') : '' }
  })
}

/**
 * The segments of `now` whose pages `before` (withTails) did not hold as they are: a new segment, or one whose id was
 * reused (another last page). Not a segment that only grew: FTS5 appends to a segment only to carry on the merge that
 * began it (fts5IndexMergeLevel: the output level's last segment; its inputs the input level's first `nMerge`
 * segments, fixed when the merge began, and never promoted into or out of while it runs), so what it gained since
 * `before` are entries of segments `before` held, and the pages it had are as they were (its old last page unchanged
 * says it is the same segment). A bulk-built home ends with such a merge under way, and every commit after it carries
 * the merge a few pages on: read whole, that segment named nearly every row.
 */
export function newSegments(db: Database.Database, fts: string, before: readonly Segment[], now: readonly Segment[]) {
  const held = new Map(before.map((s) => [s.id, s]))
  // a segment a merge is still consuming keeps its last page and loses its first ones: nothing new in it
  const same = now.filter((s) => {
    const b = held.get(s.id)
    return b && b.last === s.last && s.first >= b.first
  })
  // one a merge still writes keeps its first page and gains new last ones: nothing new in it either
  const grown = now.flatMap((s) => {
    const b = held.get(s.id)
    return b && b.first === s.first && s.last > b.last ? [{ ...s, last: b.last }] : []
  })
  const tails = new Map(withTails(db, fts, [...same, ...grown]).map((s) => [s.id, s.tail]))
  return now.filter((s) => !tails.has(s.id) || tails.get(s.id) !== held.get(s.id)?.tail)
}

/**
 * Every rowid in the leaf pages of `segments` of index `fts`, reading at most `maxPages` pages; null when more, or
 * when a page is not one this reading understands.
 */
export function segmentRowids(
  db: Database.Database,
  fts: string,
  segments: readonly Segment[],
  maxPages: number
): Set<number> | null {
  let pages = 0
  for (const s of segments) pages += s.last - s.first + 1
  if (pages > maxPages) return null
  const read = stmt<Buffer | null>(db, `SELECT block FROM main.${fts}_data WHERE id = ?`).pluck()
  const out = new Set<number>()
  try {
    for (const s of segments)
      for (let pg = s.first; pg <= s.last; pg++) {
        const page = read.get(leafId(s.id, pg))
        if (!page) return null // a page the structure names is missing: not understood
        if (!leafRowids(page, out)) return null
      }
  } catch {
    return null // a varint running off its page: not a page this reading understands
  }
  return out
}

/** Adds the rowids of one leaf page to `out`; false when the page is not one this reading understands. */
function leafRowids(page: Buffer, out: Set<number>): boolean {
  if (page.length < 4) return false
  const firstRowid = page.readUInt16BE(0)
  const index = page.readUInt16BE(2)
  if (index > page.length || index < 4) return false
  // where each term starts on the page
  const terms: number[] = []
  for (let at = index, pos = 0; at < page.length;) {
    let d: number
    ;[d, at] = varint(page, at)
    pos += d
    // (offsets only grow on a page FTS5 wrote: one that does not is read as unknown, like any other malformed page)
    if (pos < 4 || pos >= index || pos <= (terms.at(-1) ?? 0)) return false
    terms.push(pos)
  }
  const endAfter = (pos: number) => terms.find((t) => t > pos) ?? index
  /** A doclist from an absolute rowid at `pos` to `end` (or past it: the rest is on the next page). */
  const doclist = (pos: number, end: number) => {
    let rowid: number
    ;[rowid, pos] = varint(page, pos)
    out.add(rowid)
    for (;;) {
      let size: number
      ;[size, pos] = varint(page, pos)
      pos += size >> 1
      if (pos >= end) return
      let delta: number
      ;[delta, pos] = varint(page, pos)
      rowid += delta
      out.add(rowid)
    }
  }
  if (firstRowid) {
    if (firstRowid < 4 || firstRowid >= index) return false
    doclist(firstRowid, endAfter(firstRowid))
  }
  terms.forEach((t, i) => {
    let pos = t
    let suffix: number
    if (i > 0) [, pos] = varint(page, pos) // the prefix it shares with the term before it
    ;[suffix, pos] = varint(page, pos)
    pos += suffix
    const end = terms[i + 1] ?? index // the next term's start (endAfter, without a scan per term)
    if (pos < end) doclist(pos, end)
  })
  return true
}
