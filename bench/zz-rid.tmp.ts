import Database from 'better-sqlite3'
import { StoreRegistry } from '../src-main/store'
import { sqliteOf } from '../src-main/store/session-store'
import { percentiles } from './percentiles'
import { readFileSync } from 'node:fs'
const home = process.argv[2]!
const reg = new StoreRegistry(home)
const store = reg.get('default')
const db = sqliteOf(store)
const other = new Database(`${home}/state.db`)
const sid = (other.prepare('select id from sessions order by started_at desc limit 1').get() as any).id
const ins = other.prepare("insert into messages (session_id, role, content, timestamp) values (?, 'assistant', 'x', ?)")
const write = () => ins.run(sid, Date.now() / 1000)
store.listSessions({ limit: 100 })
db.exec(`CREATE TABLE cad_mem.t2 AS SELECT a.*, s.rowid AS rid FROM cad_mem.cad_activity a JOIN main.sessions s ON s.id = a.id; CREATE INDEX cad_mem.t2o ON t2(act DESC, started DESC, id DESC)`)
const run = (label: string, fn: () => void, withWrite: boolean, n = 1000) => {
  const xs: number[] = []
  for (let i = 0; i < n; i++) {
    if (withWrite) write()
    const t = performance.now()
    fn()
    xs.push(performance.now() - t)
  }
  console.log(label.padEnd(28), withWrite ? 'after-write' : 'warm       ', JSON.stringify(percentiles(xs, 3)))
}
const sql = 'SELECT s.*' + readFileSync('/tmp/page-id.sql', 'utf8').split(/^SELECT s\.\*/m)[1]!.replace(/;\s*$/, '')
const byId = db.prepare(sql).raw()
const byRid = db.prepare(sql.replace('cad_mem.cad_activity a', 'cad_mem.t2 a').replace('ON s.id = a.id', 'ON s.rowid = a.rid AND s.id = a.id')).raw()
console.log((db.prepare('EXPLAIN QUERY PLAN ' + sql.replace('cad_mem.cad_activity a', 'cad_mem.t2 a').replace('ON s.id = a.id', 'ON s.rowid = a.rid AND s.id = a.id')).all() as any[]).map((r) => r.detail).slice(0, 4))
for (let k = 0; k < 3; k++) {
  run('by id', () => byId.all(), true)
  run('by rid', () => byRid.all(), true)
}
