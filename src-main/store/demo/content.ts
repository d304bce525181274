/** Demo conversation material per profile: topics, tool calls and replies that read like real work. */
export interface Topic {
  title: string
  ask: string
  tool: string
  args: Record<string, unknown>
  result: string
  answer: string
}

const t = (
  title: string,
  ask: string,
  tool: string,
  args: Record<string, unknown>,
  result: string,
  answer: string
): Topic => ({ title, ask, tool, args, result, answer })

export const TOPICS: Record<string, Topic[]> = {
  default: [
    t(
      'Fix flaky CI on main',
      'The CI job on main fails about one run in five. Can you find out why?',
      'terminal',
      { command: 'gh run list --limit 20 --json conclusion,name' },
      '[{"conclusion":"failure","name":"test"},{"conclusion":"success","name":"test"}]',
      'The failures all come from the `watcher` test timing out under load. It waits a fixed 200 ms; switching it to wait for the event fixes the flake.'
    ),
    t(
      'Plan a weekend trip to Lisbon',
      'Plan a 2-day Lisbon trip for early spring, walking-friendly.',
      'web_search',
      { query: 'Lisbon walking itinerary 2 days spring' },
      'Top results: Alfama walking tour; Belém monuments; LX Factory; Miradouro da Senhora do Monte.',
      'Day 1: Alfama and the castle in the morning, Baixa for lunch, sunset at Senhora do Monte. Day 2: Belém (tower, monastery, pastéis), LX Factory in the afternoon.'
    ),
    t(
      'Summarize the quarterly report',
      'Summarize reports/q3.pdf in five bullet points.',
      'read_file',
      { path: 'reports/q3.pdf' },
      'Revenue 4.2M (+12% QoQ); churn 2.1%; two enterprise deals closed; hiring freeze lifted; infra cost +18%.',
      '- Revenue up 12% QoQ to 4.2M\n- Churn steady at 2.1%\n- Two enterprise deals closed\n- Hiring freeze lifted\n- Infra cost grew faster than revenue (+18%)'
    ),
    t(
      'Rename files by date',
      'Rename the photos in ~/Pictures/import to YYYY-MM-DD_n.jpg using EXIF dates.',
      'terminal',
      { command: 'exiftool -d %Y-%m-%d -p "$DateTimeOriginal $FileName" ~/Pictures/import' },
      '2026-10-03 IMG_0001.JPG\n2026-10-03 IMG_0002.JPG\n2026-10-04 IMG_0003.JPG',
      'Renamed 3 files: 2026-10-03_1.jpg, 2026-10-03_2.jpg, 2026-10-04_1.jpg.'
    ),
    t(
      'Draft a reply to the landlord',
      'Help me reply to the landlord about the broken heater, polite but firm.',
      'memory',
      { action: 'read' },
      'User prefers concise emails; landlord name is Mr. Duarte.',
      'Dear Mr. Duarte, the heater has been broken since Monday. Could a technician come by Thursday at the latest? Thank you.'
    )
  ],
  work: [
    t(
      'Review PR #412 (auth refactor)',
      'Review PR 412, focus on the token refresh path.',
      'terminal',
      { command: 'gh pr diff 412' },
      'diff --git a/src/auth/refresh.ts b/src/auth/refresh.ts\n+  if (expiresAt - now < SKEW) await refresh()',
      'The refresh path races when two requests expire together: both call refresh(). Suggest a single in-flight promise.'
    ),
    t(
      'Incident 2211 postmortem',
      'Draft the postmortem for incident 2211 (API 502s for 14 minutes).',
      'read_file',
      { path: 'incidents/2211/timeline.md' },
      '09:02 deploy; 09:04 502s rise; 09:11 rollback started; 09:16 recovered.',
      'Root cause: the new pool size exceeded the DB connection limit. Action items: load test pool changes, alert on connection saturation.'
    ),
    t(
      'Migrate billing cron to queues',
      'Plan moving the nightly billing cron to the job queue.',
      'search_files',
      { pattern: 'billing_cron', path: 'services/' },
      'services/billing/cron.ts:14\nservices/billing/jobs.ts:3',
      'Split the cron into per-account jobs, make them idempotent on (account, period), and keep the cron as a fan-out trigger.'
    ),
    t(
      'Quarterly OKR draft',
      'Help draft engineering OKRs for next quarter.',
      'memory',
      { action: 'read' },
      'Last quarter: p95 latency target missed (380ms vs 300ms).',
      'O1: Fast API — KR: p95 < 300 ms; KR: zero P1 incidents from deploys. O2: Developer speed — KR: CI < 10 min.'
    )
  ],
  research: [
    t(
      'Survey: retrieval-augmented agents',
      'Collect recent papers on retrieval-augmented agents and group them.',
      'web_search',
      { query: 'retrieval augmented agents survey 2026' },
      '1. Agentic RAG survey; 2. Memory-augmented planners; 3. Tool-use benchmarks.',
      'Three clusters: retrieval as a tool, long-term memory stores, and planners that decide when to retrieve.'
    ),
    t(
      'Replicate table 3 results',
      'Re-run the ablation in table 3 with seed 7.',
      'terminal',
      { command: 'python run_ablation.py --seed 7' },
      'full: 71.2  -memory: 64.9  -retrieval: 60.3',
      'Within 0.4 points of the paper for every row; the memory ablation is slightly worse than reported.'
    ),
    t(
      'Reading notes: sparse attention',
      'Summarize the sparse attention paper I saved.',
      'read_file',
      { path: 'papers/sparse-attention.md' },
      'Block-sparse patterns; 3.1x speedup at 32k context; small quality loss on retrieval tasks.',
      'Block-sparse attention gives ~3x speed at 32k tokens; the cost is a small drop on needle-in-haystack retrieval.'
    )
  ]
}

export const REASONING = [
  'Check the obvious cause first, then confirm with data.',
  'The user wants something short; keep the answer to a few lines.',
  'A tool call is cheaper than guessing here.'
]

export const MEMORY_ENTRIES: Record<string, string[]> = {
  default: ['User prefers concise answers.', 'Home city: Porto.', 'Uses fish shell and neovim.'],
  work: [
    'Team: platform. On-call rotation starts Mondays.',
    'PRs need two approvals.',
    'Prod DB is read-only for agents.'
  ],
  research: ['Cite papers as (Author, Year).', 'Current focus: memory for agents.']
}

const cell = (s: string) => s.split('\n')[0]!.replace(/\|/g, '\\|').slice(0, 80)

/**
 * The Markdown tail of a demo answer: a fenced code block, a table and a task list, so a newcomer sees the
 * transcript's rendering on any demo session they open.
 */
export function richAnswer(topic: Topic): string {
  const cmd = typeof topic.args.command === 'string' ? topic.args.command : JSON.stringify(topic.args, null, 2)
  const lang = typeof topic.args.command === 'string' ? 'bash' : 'json'
  return `${topic.answer}

**What I ran**

\`\`\`${lang}
${cmd}
\`\`\`

| Step | Tool | Outcome |
|---|---|---|
| 1 | \`${topic.tool}\` | ${cell(topic.result)} |
| 2 | review | summarised above |

- [x] Ran \`${topic.tool}\`
- [x] Summarised the findings
- [ ] Follow up if anything changes`
}
