// Child process for last-resort.test.ts: throws and rejects where nothing catches, then says it is still alive.
import { createLogger } from '../log/log'
import { installLastResort } from '../log/last-resort'

const log = createLogger({ errorFile: process.argv[2] })
installLastResort(log)
setTimeout(() => {
  throw new TypeError('Cannot convert object to primitive value')
}, 10)
void Promise.reject(new Error('nobody awaited me'))
for (let i = 0; i < 20; i++)
  setTimeout(() => {
    throw new Error('the same bug again')
  }, 20)
setTimeout(() => {
  console.log('still alive')
  process.exit(0)
}, 300)
