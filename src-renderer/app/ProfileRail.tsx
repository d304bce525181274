import { useShallow } from 'zustand/react/shallow'
import { setScope, useApp } from '../stores/app'
import { PlusIcon } from '../components/icons'
import { navigate } from './router'
import { toggleRail, useOverlay } from './palette/state'

const isMac = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform)
export const MOD = isMac ? '⌘' : 'Ctrl+'

/**
 * Left rail: All + every profile; ⌘/Ctrl+1 is All, ⌘/Ctrl+2…9 the profiles in order. A profile whose state.db cannot
 * be read (damaged, or not readable by this user) shows "!" with the reason instead of a count that would read as
 * "no sessions"; one served with a notice (a newer upstream schema) keeps its count and carries the notice. A profile
 * with both (an unreadable state.db and an unreadable config.yaml) names both in the "!"'s text.
 */
export function ProfileRail() {
  const { profiles, scope } = useApp(useShallow((s) => ({ profiles: s.profiles, scope: s.scope })))
  const items: Array<{ name: string; label: string; count: number; error?: string; notice?: string }> = [
    { name: 'all', label: 'All profiles', count: profiles.reduce((n, p) => n + p.sessionCount, 0) },
    ...profiles.map((p) => ({ name: p.name, label: p.name, count: p.sessionCount, error: p.error, notice: p.notice }))
  ]
  const collapsed = useOverlay((s) => s.railCollapsed)
  return (
    <nav className="rail" aria-label="Profiles" data-testid="profile-rail">
      <div className="rail-top">
        <div className="rail-brand">☤ Caduceus</div>
        <button
          className="icon-btn rail-toggle"
          onClick={toggleRail}
          aria-expanded={!collapsed}
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          title={`${collapsed ? 'Expand' : 'Collapse'} sidebar ([)`}
          data-testid="rail-toggle"
        >
          {collapsed ? '»' : '«'}
        </button>
      </div>
      <ul>
        {items.map((p, i) => (
          <li key={p.name}>
            <button
              className={`rail-item${scope === p.name ? ' active' : ''}`}
              aria-current={scope === p.name ? 'true' : undefined}
              data-testid={`profile-rail-item-${p.name}`}
              title={i < 9 ? `${p.label} (${MOD}${i + 1})` : p.label}
              onClick={() => setScope(p.name)}
            >
              <span className="rail-avatar" aria-hidden>
                {p.name === 'all' ? '∗' : p.name.slice(0, 2).toUpperCase()}
              </span>
              <span className="rail-name">{p.label}</span>
              {p.error ? (
                <span
                  className="rail-count rail-problem"
                  title={`${p.name} cannot be read: ${p.error}${p.notice ? `\n${p.notice}` : ''}`}
                  data-testid={`profile-problem-${p.name}`}
                >
                  !
                  <span className="sr-only">
                    {' '}
                    cannot be read: {p.error}
                    {p.notice ? `\n${p.notice}` : ''}
                  </span>
                </span>
              ) : (
                <span
                  className={`rail-count${p.notice ? ' rail-problem' : ''}`}
                  title={p.notice}
                  data-testid={p.notice ? `profile-notice-${p.name}` : undefined}
                >
                  {p.count}
                  {p.notice ? ' !' : ''}
                </span>
              )}
            </button>
            {p.name !== 'all' && (
              <button
                className="icon-btn rail-new"
                title={`New chat in ${p.name}`}
                aria-label={`New chat in ${p.name}`}
                data-testid={`new-chat-${p.name}`}
                onClick={() => navigate({ page: 'new', profile: p.name })}
              >
                <PlusIcon />
              </button>
            )}
          </li>
        ))}
      </ul>
    </nav>
  )
}
