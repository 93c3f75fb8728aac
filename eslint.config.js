import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importCircles } from './lint/import-circles.js';
import { layers } from './lint/layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'contracts/artifacts/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['src/bin/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  // src/'s rooms import downwards only (docs/architecture.md, "Layers"), and no import circle in
  // src/, test/ or bench/, `import type` included (lint/layers.js, lint/import-circles.js).
  { plugins: { rooms: { rules: { layers, 'import-circles': importCircles } } } },
  { files: ['{src,test,bench}/**/*.ts'], rules: { 'rooms/import-circles': 'error' } },
  { files: ['src/**/*.ts'], rules: { 'rooms/layers': 'error' } },
  ...simLayers(),
);

/**
 * src/sim's layers (src/sim/README.md): a file imports only from its own layer or lower ones,
 * `import type` included. Each entry: the files of a layer (under src/sim) and the sim paths they
 * must not import, matched on the import's relative path (`./` or `../`, then the path below src/sim
 * as far as it is written, e.g. `../../surfaces/` or `./blocks.js`).
 */
function simLayers() {
  const layer = (files, forbidden, { ignores = [], parentsOnly = false } = {}) => ({
    files: files.map((f) => `src/sim/${f}`),
    ignores: ignores.map((f) => `src/sim/${f}`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(${parentsOnly ? '\\.\\./' : '\\.\\.?/'})+(${forbidden.join('|')})(/|\\.js$)`,
              message: 'src/sim imports flow one way: see the layers in src/sim/README.md.',
            },
          ],
        },
      ],
    },
  });
  const assembly = ['chain/assemble.ts', 'chain/blocks.ts'];
  const wiring = ['vm/setup.ts', 'vm/*/setup.ts'];
  const aboveModels = [
    'surfaces',
    'replay',
    'vip',
    'simulator',
    'truth/routes',
    'chain/assemble',
    'chain/blocks',
  ];
  // One entry per file: a later entry for the same file would replace an earlier one's patterns.
  return [
    // 2. chain primitives: types.ts and src/shared only.
    layer(['chain/**'], ['truth', 'vm', 'surfaces', 'replay', 'vip', 'simulator', 'assemble', 'blocks'], {
      ignores: assembly,
    }),
    // 3. truth derivations (tx accounts, NFTs): chain primitives.
    layer(['truth/accounts.ts', 'truth/nft.ts'], ['vm', 'routes', ...aboveModels]),
    // 4. chain assembly (no VM, no surface) and the VM models (no assembly, no surface; the
    // common pieces below the VMs).
    layer(assembly, ['vm', 'surfaces', 'replay', 'vip', 'simulator', 'truth/routes']),
    layer(['vm/common/**'], [...aboveModels, 'move', 'wasm', 'evm']),
    layer(['vm/**'], [...aboveModels, 'rest', 'setup'], {
      ignores: ['vm/common/**', 'vm/*/rest.ts', ...wiring],
    }),
    // 5. surfaces, a VM's own REST answers, the truth routes: not the wiring above them.
    layer(
      ['surfaces/**', 'truth/routes.ts', 'vm/*/rest.ts'],
      ['replay', 'vip', 'simulator', 'setup', 'vm/setup'],
    ),
    // 6. VM wiring and replay: not the simulator.
    layer([...wiring, 'replay/**'], ['vip', 'simulator']),
    // The VIP extension: types.ts and surfaces/http.ts only.
    layer(['vip/**'], ['chain', 'truth', 'vm', 'surfaces/(?!http\\.js$)[\\w-]+', 'replay', 'simulator'], {
      parentsOnly: true,
    }),
  ];
}
