// The keyless demo model through real host turns with the holographic provider: asked to remember or to
// delegate on a turn whose message carries recall, it stores and delegates only what the user wrote, never
// the recalled <memory-context> block (which would copy memory back into memory, or into a child's goal).
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { demoResponder } from '../../agent/scripted'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { lastOf, makeRig, type Rig } from '../test-fixtures/memory-host'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

describe('demo model and recalled memory', () => {
  it('stores and delegates the user text only, though the turn carried recall', async () => {
    rig = await makeRig(demoResponder)
    rig.writeConfig('default', 'memory:\n  provider: holographic\n')
    await rig.start()
    const finished = () => rig!.events.filter((e) => e.event === 'turn.finished').length
    const say = async (text: string) => {
      const n = finished()
      const res = await rig!.host!.dispatcher.invoke('sessions.start', { profile: 'default', text })
      expect(res.ok, JSON.stringify(res)).toBe(true)
      await waitUntil(() => finished() > n)
    }
    await say('remember that the staging server is bluebird')
    await say('remember that staging deploys run on Fridays')
    await say('delegate a check of the staging server')
    await waitUntil(() => rig!.chats().some((q) => String(lastOf(q)?.content).startsWith('delegate a check')))

    // The second and third turns did carry recall of the first fact...
    const carried = rig.chats().filter((q) => String(lastOf(q)?.content).includes('<memory-context>'))
    expect(carried.length).toBeGreaterThanOrEqual(2)
    // ...yet the store holds exactly what the user asked to keep.
    const db = new Database(join(rig.root, 'memory_store.db'), { readonly: true })
    const facts = db.prepare('SELECT content FROM facts ORDER BY fact_id').pluck().all()
    db.close()
    expect(facts).toEqual(['the staging server is bluebird', 'staging deploys run on Fridays'])
    const goal = rig
      .chats()
      .flatMap(
        (q) =>
          (q.body?.messages ?? []) as Array<{
            role: string
            tool_calls?: Array<{ function: { name: string; arguments: string } }>
          }>
      )
      .flatMap((m) => m.tool_calls ?? [])
      .find((c) => c.function.name === 'delegate_task')
    expect(JSON.parse(goal!.function.arguments).goal).toBe('delegate a check of the staging server')
  })
})
