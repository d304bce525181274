import { navigate } from '../app/router'
import { MOD } from '../app/ProfileRail'
import { Badge } from '../components/Badge'
import { useApp } from '../stores/app'
import { startChat } from '../stores/turns'
import { Composer } from './session/Composer'

/** A new desk-chat session in one profile; once started, the session page takes over the stream. */
export function NewChatPage({ profile }: { profile: string }) {
  const exists = useApp((s) => s.profiles.some((p) => p.name === profile))
  return (
    <div className="new-chat" data-testid="new-chat">
      <h1>
        New chat <Badge tone="accent">{profile}</Badge>
      </h1>
      {!exists && (
        <div className="err-text" role="alert">
          Profile “{profile}” does not exist.
        </div>
      )}
      <Composer
        disabled={!exists}
        autoFocus
        draftKey={`new:${profile}`}
        placeholder={`What should the agent do?  (${MOD}Enter to send)`}
        onSend={async (text) => {
          const h = await startChat(profile, text)
          if (h) navigate({ page: 'session', profile: h.profile, sessionId: h.sessionId, messageId: null })
          return h != null
        }}
      />
    </div>
  )
}
