/**
 * The stylesheet every HTML export carries inline (export-html.ts): system fonts only, no external request, light and
 * dark colours chosen by the reader's `prefers-color-scheme`, each text colour at least 4.5:1 on every background it
 * sits on in both schemes (the e2e export test runs axe on a real export in both).
 */
export const EXPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --link: #0a58ca;
  --user: #eef4fb; --model: #f6f8fa; --note: #fff8e6; --tool: #f3f0fb; --code: #eef1f4;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #a2abb6; --line: #3d444d; --link: #74b9ff;
    --user: #122338; --model: #161b22; --note: #2a2110; --tool: #1f1a2e; --code: #1c2128;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--link); }
header.site, main, nav.sessions { max-width: 60rem; margin: 0 auto; padding: 0 1rem; }
header.site { padding-top: 1.5rem; }
h1 { font-size: 1.6rem; margin: 1.5rem 0 .5rem; overflow-wrap: anywhere; }
h2.session-title { font-size: 1.35rem; margin: 2.5rem 0 .5rem; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
nav.sessions ol { padding-left: 1.5rem; }
nav.sessions li { margin: .2rem 0; }
nav.sessions a { display: inline-block; min-height: 24px; padding: .15rem 0; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0 1.25rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ol.transcript { list-style: none; margin: 0 0 3rem; padding: 0; }
ol.transcript > li { margin: .75rem 0; padding: .6rem .9rem; border: 1px solid var(--line); border-radius: 8px; }
li.user { background: var(--user); }
li.assistant { background: var(--model); }
li.note { background: var(--note); }
li.tool { background: var(--tool); }
.who { font-size: .95rem; font-weight: 600; margin: 0 0 .35rem; }
.who time { font-weight: 400; color: var(--muted); margin-left: .5rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--code); padding: .5rem .65rem;
  border-radius: 6px; margin: .35rem 0; }
details { margin: .4rem 0; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }
details > summary { cursor: pointer; min-height: 24px; padding: .3rem .6rem; overflow-wrap: anywhere; }
details > :not(summary) { margin-left: .6rem; margin-right: .6rem; }
details[open] > summary { border-bottom: 1px solid var(--line); }
.label { font-size: .85rem; color: var(--muted); margin: .5rem .6rem .1rem; }
.status { color: var(--muted); }
`
