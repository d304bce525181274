// The layer rule must be able to fail: a synthetic bad import in each layer is linted through ESLint's own API
// with the project's config, and each is reported; the allowed forms next to them are not.
import { join, resolve } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
// The synthetic files exist in no tsconfig, so the type-aware rules (and the project service behind them) are off
// here: only the layer rule is under test.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off' }
  }
})

async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) })
  return result!.messages.filter((m) => m.ruleId === 'caduceus/layers').map((m) => m.message)
}

describe('lint: the layer table is enforced', () => {
  const bad: [string, string, RegExp][] = [
    [
      'src-renderer/pages/Bad.tsx',
      "import { readFileSync } from 'node:fs'\nexport const x = readFileSync",
      /renderer has no Node/
    ],
    ['src-renderer/pages/Bad.tsx', "import Database from 'better-sqlite3'\nexport const x = Database", /main process/],
    ['src-renderer/pages/Bad.tsx', "import { x } from '../../src-main/store'\nexport const y = x", /only shared/],
    ['shared/contract/bad.ts', "import { x } from '../../src-main/store'\nexport const y = x", /only itself/],
    ['shared/contract/bad.ts', "import yaml from 'yaml'\nexport const y = yaml", /only zod/],
    ['src-main/store/bad.ts', "import { x } from '../gateway'\nexport const y = x", /may not import src-main\/gateway/],
    ['src-main/store/bad.ts', "import '../gateway'", /may not import src-main\/gateway/],
    ['src-main/store/bad.ts', "const g = require('../agent')\nexport const y = g", /may not import src-main\/agent/],
    ['src-main/store/bad.ts', "export const g = () => import('../memory')", /may not import src-main\/memory/],
    [
      'src-main/agent/bad.ts',
      "import { x } from '../store/session-store'\nexport const y = x",
      /through its index\.ts face/
    ],
    ['src-main/scope/bad.ts', "import { z } from 'zod'\nexport const y = z", /only node/],
    ['src-main/files/bad.ts', "import yaml from 'yaml'\nexport const y = yaml", /files may import only node/],
    ['src-main/files/bad.ts', "import { x } from '../scope'\nexport const y = x", /may not import src-main\/scope/],
    ['src-main/costs/bad.ts', "import { x } from '../secrets'\nexport const y = x", /may not import src-main\/secrets/],
    ['src-main/newfolder/bad.ts', "import { app } from 'electron'\nexport const y = app", /not in the layer table/],
    [
      'src-main/host/bad.ts',
      "import { app } from 'electron'\nexport const y = app",
      /only src-main\/index\.ts and preload\.ts/
    ],
    ['src-main/host/bad.ts', "export * from '../index'", /Electron entry/],
    // Inside host/, one job folder per job: through the other job's face, and only downwards.
    [
      'src-main/host/cli/bad.ts',
      "import { startHeadless } from '../transport/http-transport'\nexport const y = startHeadless",
      /import host\/transport\/ through its index\.ts face/
    ],
    [
      'src-main/host/log/bad.ts',
      "import { createHost } from '../compose'\nexport const y = createHost",
      /host\/log\/ may not import host\/compose\//
    ],
    [
      'src-main/host/services/bad.ts',
      "import { buildHandlers } from '../handlers'\nexport const y = buildHandlers",
      /host\/services\/ may not import host\/handlers\//
    ],
    [
      'src-main/index.ts',
      "import { createDispatcher } from './host/dispatch'\nexport const y = createDispatcher",
      /through its index\.ts face/
    ]
  ]
  for (const [file, code, reason] of bad) {
    it(`refuses in ${file}: ${code.split('\n')[0]}`, async () => {
      const errors = await layerErrors(file, code)
      expect(errors.join('\n')).toMatch(reason)
    })
  }

  it('allows what the table allows', async () => {
    expect(
      await layerErrors(
        'src-main/agent/ok.ts',
        "import { x } from '../store'\nimport { y } from './tools'\nimport { z } from '@shared/contract'\nexport const w = [x, y, z]"
      )
    ).toEqual([])
    expect(
      await layerErrors(
        'src-renderer/pages/Ok.tsx',
        "import { z } from '@shared/contract'\nimport { useState } from 'react'\nexport const w = [z, useState]"
      )
    ).toEqual([])
    expect(
      await layerErrors(
        'src-main/preload.ts',
        "import { contextBridge } from 'electron'\nexport const w = contextBridge"
      )
    ).toEqual([])
    expect(
      await layerErrors(
        'src-main/host/ok.ts',
        "import { a } from '../delegation'\nimport { b } from '../tools'\nexport const w = [a, b]"
      )
    ).toEqual([])
    expect(
      await layerErrors(
        'src-main/host/cli/ok.ts',
        "import { a } from '../compose'\nimport { b } from '../transport/index'\nimport { c } from './args'\nexport const w = [a, b, c]"
      )
    ).toEqual([])
    expect(
      await layerErrors(
        'src-main/index.ts',
        "import { a } from './host'\nimport { b } from './host/electron'\nexport const w = [a, b]"
      )
    ).toEqual([])
  })
})
