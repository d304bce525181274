import { Dialog } from '../../components/Dialog'
import { NAV } from '../routes'

export const SHORTCUTS: Array<[string, string]> = [
  ['Ctrl/⌘ K', 'Command palette: pages, actions, sessions'],
  ['?', 'This list of shortcuts'],
  ['/', 'Focus the page’s search box'],
  ...NAV.map((n): [string, string] => [`g ${n.key}`, `Go to ${n.label}`]),
  ['Ctrl/⌘ 1…9', 'Switch profile (1 = All) — in a browser tab use p then 1…9'],
  ['p 1…9', 'Switch profile (works where the browser owns Ctrl+1…9)'],
  ['Esc', 'Leave the open session (back to Sessions); close a dialog'],
  ['Ctrl/⌘ Enter', 'Send the composer’s message'],
  ['↑ ↓ / j k', 'Move through lists'],
  ['j / k', 'In a session: next / previous message'],
  ['Home / End', 'In a session: first / last message'],
  ['[', 'Show or hide the sidebar']
]

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog
      title="Keyboard shortcuts"
      onClose={onClose}
      testId="shortcuts-dialog"
      footer={
        <button className="primary" onClick={onClose}>
          Close
        </button>
      }
    >
      <table className="shortcuts">
        <tbody>
          {SHORTCUTS.map(([k, what]) => (
            <tr key={k} data-testid="shortcut-row">
              <th scope="row">
                <kbd>{k}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  )
}
