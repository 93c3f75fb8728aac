import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  brokenDocLinks,
  citationProblems,
  listTextFiles,
  repoDocSections,
  sectionNumbers,
} from './citations.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

// The planted upstream paths are assembled, so this file holds no citation of its own for a
// reader (or a grep) to follow.
const UPSTREAM_API = ['spec', 'api.md'].join('/');
const UPSTREAM_SCORING = ['spec', 'scoring.md'].join('/');

const sections = (doc: string) =>
  ({ 'api.md': new Set(['1', '1.2', '4.6.3']) })[doc as 'api.md'] as Set<string> | undefined;

describe('citation checker', () => {
  it('reads section numbers from headings', () => {
    expect([
      ...sectionNumbers('# Title\n## 4. Routes\n### 4.6 NFTs\n#### 4.6.3 `by_name`\ntext §9\n'),
    ]).toEqual(['4', '4.6', '4.6.3']);
  });

  it('accepts existing sections, ranges after one document, and RFC sections', () => {
    const text = '// docs/api.md §1.2 and §4.6.3; docs/api.md §1–§1.2 (RFC 9110 §9.1)';
    expect(citationProblems(text, sections)).toEqual([]);
  });

  it.each([
    [`// ${UPSTREAM_API} §1.2`, 'cites an upstream spec file'],
    [`// ../shared/${UPSTREAM_SCORING}`, 'cites a shared/ checkout'],
    ['// per decision 8', 'cites "decision N" of a document outside the repository'],
    ['//   npx tsx bench/x.ts --src /work/wt/main', "cites a machine's absolute path"],
    ['// docs/api.md §7', 'docs/api.md has no §7'],
    ['// docs/nope.md', 'docs/nope.md does not exist'],
    ['// the key of §4.6.3', '§4.6.3 names no docs/ file'],
  ])('reports %s', (text, reason) => {
    expect(citationProblems(text, sections).map((p) => p.reason)).toContain(reason);
  });

  it('inside docs/, reads a bare § as the file itself and `Y.md §N` as a sibling', () => {
    expect(citationProblems('see §4.6.3 and [api.md §1.2](api.md#12)', sections, 'api.md')).toEqual([]);
    expect(citationProblems('see §9', sections, 'api.md').map((p) => p.reason)).toEqual([
      'docs/api.md has no §9',
    ]);
  });
});

/** The checker and its own planted examples. */
const CHECKER_FILES = [
  path.join('test', 'docs', 'citations.ts'),
  path.join('test', 'docs', 'citations.test.ts'),
];

describe('citations in src/, test/ and bench/', () => {
  it('name only docs/ sections that exist, and nothing outside the repository', () => {
    const docSections = repoDocSections();
    const problems = listTextFiles(['src', 'test', 'bench'])
      .filter((file) => !file.startsWith(path.join('test', 'fixtures')) && !CHECKER_FILES.includes(file))
      .flatMap((file) =>
        citationProblems(readFileSync(path.join(REPO_ROOT, file), 'utf8'), docSections).map(
          (p) => `${file}:${p.line}: ${p.reason} — ${p.text}`,
        ),
      );
    expect(problems).toEqual([]);
  });
});

describe('citations inside docs/', () => {
  it('name only sections that exist, and nothing outside the repository', () => {
    const docSections = repoDocSections();
    const problems = listTextFiles(['docs']).flatMap((file) =>
      citationProblems(
        readFileSync(path.join(REPO_ROOT, file), 'utf8'),
        docSections,
        path.basename(file),
      ).map((p) => `${file}:${p.line}: ${p.reason} — ${p.text}`),
    );
    expect(problems).toEqual([]);
  });
});

describe('links between docs/ files', () => {
  it('reads anchors as GitHub makes them', () => {
    const text =
      '## 4.6.7 `/indexer/nft/v1/txs/{collection_addr}/{token_id}`\n### 0.2 `msgs` takes both forms\n<a id="x"></a>';
    expect([...anchorsOf(text)]).toEqual([
      '467-indexernftv1txscollection_addrtoken_id',
      '02-msgs-takes-both-forms',
      'x',
    ]);
    expect(
      brokenDocLinks('[a](#x) [b](other.md#y) [c](#z)', 'self.md', (doc) =>
        doc === 'self.md' ? text : '## Y',
      ),
    ).toEqual(['self.md#z']);
  });

  it('point at anchors that exist', () => {
    const readDoc = (doc: string): string | undefined => {
      try {
        return readFileSync(path.join(REPO_ROOT, 'docs', doc), 'utf8');
      } catch {
        return undefined;
      }
    };
    const broken = listTextFiles(['docs'])
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) =>
        brokenDocLinks(readDoc(path.basename(file))!, path.basename(file), readDoc).map(
          (b) => `${file}: ${b}`,
        ),
      );
    expect(broken).toEqual([]);
  });
});
