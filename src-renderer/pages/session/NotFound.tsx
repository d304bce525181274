/** An id that does not resolve: say so plainly, offer the way back, and no composer to type into. */
export function SessionNotFound({ profile, sessionId }: { profile: string; sessionId: string }) {
  return (
    <div className="state-screen" data-testid="session-not-found" role="status">
      <h1>Session not found</h1>
      <p>
        There is no session <code>{sessionId}</code> in the profile <strong>{profile}</strong>. It may have been
        deleted, pruned, or the link points at another profile.
      </p>
      <p>
        <a href="#/sessions">Back to all sessions</a> · press <kbd>Ctrl</kbd>+<kbd>K</kbd> to find one by name.
      </p>
    </div>
  )
}
