import { StoreRegistry } from '../src-main/store'
import { generateBulk } from '../src-main/store/demo'
import { sqliteOf } from '../src-main/store/session-store'
const reg = new StoreRegistry('/tmp/cad22/v30')
const s = reg.get('default')
generateBulk(s, { sessions: 10000, messagesPerSession: 50 })
sqliteOf(s).exec('ANALYZE')
reg.closeAll()
console.log('ok')
