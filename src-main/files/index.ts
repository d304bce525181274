/**
 * files/ — writing a file whole: a temp file renamed over it, so a reader (or upstream Hermes in another process) never
 * sees half of it, with the mode each file's owner rule gives it and, where asked, a symlink kept. Every writer of a
 * home's or the app's files that replaces one whole goes through it. Also: the files a deleted session leaves in
 * `<home>/sessions/`, removed as upstream removes them. And the one place "the file is not there" is told apart from a
 * file that cannot be read (`readFileIfExists`, `statIfExists`). A change this user may not make (a read-only mount, another user's home) refused in words
 * (`refuseUnwritable`), and why this user may not write a path (`writeDenial`, which the store says of a state.db).
 */
export { replaceFile } from './replace-file'
export { removeSessionFiles } from './session-files'
export { readFileIfExists, statIfExists } from './if-exists'
export { refuseUnwritable, writeDenial } from './unwritable'
