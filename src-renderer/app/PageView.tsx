import { Suspense } from 'react'
import { CronPage } from '../pages/CronPage'
import { GatewayPage } from '../pages/GatewayPage'
import { MemoryPage } from '../pages/MemoryPage'
import { NewChatPage } from '../pages/NewChatPage'
import { SessionPage } from '../pages/SessionPage'
import { SessionsPage } from '../pages/SessionsPage'
import { SettingsPage } from '../pages/SettingsPage'
import { SubagentsPage } from '../pages/SubagentsPage'
import type { Route } from './routes'

import { lazyPage } from './lazy-page'

// recharts is most of the bundle: load it with the Costs page only
const CostsPage = lazyPage(() => import('../pages/CostsPage').then((m) => m.CostsPage), 'Costs')

export function PageView({ route }: { route: Route }) {
  switch (route.page) {
    case 'sessions':
      return <SessionsPage />
    case 'session':
      return (
        <SessionPage
          key={`${route.profile}/${route.sessionId}`}
          profile={route.profile}
          sessionId={route.sessionId}
          messageId={route.messageId}
        />
      )
    case 'new':
      return <NewChatPage profile={route.profile} />
    case 'subagents':
      return <SubagentsPage />
    case 'costs':
      return (
        // busy while its code loads, so a reader (and a test waiting for the page to settle) knows it is coming
        <Suspense
          fallback={
            <div className="muted pad" aria-busy="true">
              Loading…
            </div>
          }
        >
          <CostsPage />
        </Suspense>
      )
    case 'memory':
      return <MemoryPage />
    case 'gateway':
      return <GatewayPage />
    case 'cron':
      return <CronPage />
    case 'settings':
      return <SettingsPage profile={route.profile} />
  }
}
