import { useConnection } from '../stores/connection'
import { useApp } from '../stores/app'
import { MonitorIcon, MoonIcon, SunIcon } from '../components/icons'
import { NAV, actingProfile, type Route } from './routes'
import { cycleTheme } from './theme'
import { navigate } from './router'

/** Always in view: a new chat in the profile in scope (actingProfile). */
function NewChatButton() {
  const profile = useApp((s) => actingProfile(s.scope, s.profiles))
  if (!profile) return null
  return (
    <button
      className="small primary new-chat"
      data-testid="topbar-new-chat"
      title={`Start a new chat in ${profile}`}
      onClick={() => navigate(`#/new/${encodeURIComponent(profile)}`)}
    >
      + New chat
    </button>
  )
}

function ConnectionIndicator() {
  const state = useConnection((s) => s.state)
  const label = state === 'closed' ? 'disconnected' : state
  return (
    <span
      className={`conn conn-${state}`}
      data-testid="connection-indicator"
      data-state={state}
      title={`Host connection: ${label}`}
    >
      <span className="conn-dot" aria-hidden />
      <span className="conn-label">{label}</span>
    </span>
  )
}

function ThemeToggle() {
  const theme = useApp((s) => s.theme)
  return (
    <button
      className="icon-btn"
      data-testid="theme-toggle"
      data-theme-choice={theme}
      onClick={cycleTheme}
      title={`Theme: ${theme} (click to change)`}
      aria-label={`Theme: ${theme}`}
    >
      {theme === 'light' ? <SunIcon /> : theme === 'dark' ? <MoonIcon /> : <MonitorIcon />}
    </button>
  )
}

export function TopBar({ route }: { route: Route }) {
  const active = route.page === 'session' || route.page === 'new' ? 'sessions' : route.page
  const demo = useApp((s) => s.info?.demo)
  return (
    <header className="topbar">
      <nav className="tabs" aria-label="Pages">
        {NAV.map((n) => (
          <a
            key={n.page}
            href={`#/${n.page}`}
            className={`tab${active === n.page ? ' active' : ''}`}
            data-testid={`nav-${n.page}`}
            aria-current={active === n.page ? 'page' : undefined}
          >
            {n.label}
          </a>
        ))}
      </nav>
      <span className="spacer" />
      <NewChatButton />
      {demo && (
        <span className="badge badge-warn" title="The host runs with a scripted demo model">
          demo
        </span>
      )}
      <ConnectionIndicator />
      <ThemeToggle />
    </header>
  )
}
