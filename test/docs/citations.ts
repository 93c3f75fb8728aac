import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/repo-root.js';

/**
 * What a citation in the code may point at: `docs/X.md` files that exist, and `§N` sections those
 * files number in their headings (`## 4.`, `### 4.6`, `#### 4.6.3 …`). Anything a maintainer holding
 * only the clone cannot open — the upstream spec files, a sibling `shared/` checkout, "decision N" of
 * a document that is not here, a development machine's absolute path — is a problem.
 */

const TEXT_FILE = /\.(ts|js|mjs|cjs|md|sql|json|html|sh)$/;

/** Every text file under `dirs` (relative to the repository), skipping dependencies and output. */
export function listTextFiles(dirs: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(path.join(REPO_ROOT, dir))) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const relative = path.join(dir, name);
      if (statSync(path.join(REPO_ROOT, relative)).isDirectory()) walk(relative);
      else if (TEXT_FILE.test(name)) files.push(relative);
    }
  };
  dirs.forEach(walk);
  return files;
}

/** The section numbers a markdown document gives its headings: "4", "4.6", "4.6.3", "0.10". */
export function sectionNumbers(markdown: string): Set<string> {
  const numbers = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)) numbers.add(match[1]!);
  return numbers;
}

const OUTSIDE_REPO: ReadonlyArray<[RegExp, string]> = [
  [/\bspec\/[a-z-]+\.md/, 'an upstream spec file'],
  [
    /\.\.\/shared\/(?:spec|DESIGN|peers|chain-samples)|(?<![\w/])shared\/(?:spec|peers|chain-samples)\//,
    'a shared/ checkout',
  ],
  [/\bDESIGN\.md\b/, 'DESIGN.md'],
  [/\b[Dd]ecision \d+/, '"decision N" of a document outside the repository'],
  [/(?<![\w.])\/(?:work|home|Users|tmp\/[\w-]+)\/[\w./-]+/, "a machine's absolute path"],
];

/** `§N`, `§N–M` or `§N–§M`; the number may end a sentence (`§6.2.`). */
const SECTION_TOKEN = /§\s?(\d+(?:\.\d+)*)(?:–§?(\d+(?:\.\d+)*))?/g;
const DOC_MENTION = /docs\/([a-z0-9-]+\.md)/g;
/** Inside docs/: `api.md §2` (a link text) names a sibling document; `docs/api.md` is the same file. */
const SIBLING_MENTION = /(?<![\w/.-])(?:docs\/)?([a-z0-9-]+\.md)(?=\s*§)/g;

export interface CitationProblem {
  line: number;
  text: string;
  reason: string;
}

/**
 * Problems of one file's text. `docSections(name)` answers the section numbers of `docs/<name>`,
 * or undefined when that document does not exist. A `§` belongs to the nearest `docs/X.md`
 * before it on the same line; one with none before it is a problem unless it cites an RFC.
 */
export function citationProblems(
  text: string,
  docSections: (doc: string) => Set<string> | undefined,
  /** For a file of docs/ itself: its name, which a bare `§N` cites, and `Y.md §N` cites docs/Y.md. */
  inDoc?: string,
): CitationProblem[] {
  const problems: CitationProblem[] = [];
  text.split('\n').forEach((lineText, index) => {
    const report = (reason: string) => problems.push({ line: index + 1, text: lineText.trim(), reason });
    for (const [pattern, what] of OUTSIDE_REPO) if (pattern.test(lineText)) report(`cites ${what}`);
    const mentions = [...lineText.matchAll(inDoc === undefined ? DOC_MENTION : SIBLING_MENTION)].map((m) => ({
      at: m.index,
      doc: m[1]!,
    }));
    for (const mention of mentions) {
      if (docSections(mention.doc) === undefined) report(`docs/${mention.doc} does not exist`);
    }
    for (const token of lineText.matchAll(SECTION_TOKEN)) {
      if (/RFC \d+\s*$/.test(lineText.slice(0, token.index))) continue;
      const owner =
        mentions.filter((m) => m.at < token.index).at(-1) ??
        (inDoc === undefined ? undefined : { doc: inDoc });
      if (owner === undefined) {
        report(`${token[0]} names no docs/ file`);
        continue;
      }
      const sections = docSections(owner.doc);
      for (const number of [token[1], token[2]]) {
        if (number !== undefined && sections !== undefined && !sections.has(number)) {
          report(`docs/${owner.doc} has no §${number}`);
        }
      }
    }
  });
  return problems;
}

/** Section numbers of the repository's own docs, read once per document. */
export function repoDocSections(): (doc: string) => Set<string> | undefined {
  const cache = new Map<string, Set<string> | undefined>();
  return (doc) => {
    if (!cache.has(doc)) {
      let sections: Set<string> | undefined;
      try {
        sections = sectionNumbers(readFileSync(path.join(REPO_ROOT, 'docs', doc), 'utf8'));
      } catch {
        sections = undefined;
      }
      cache.set(doc, sections);
    }
    return cache.get(doc);
  };
}

/** GitHub's anchor of a heading: lower-cased, punctuation but `-` and `_` dropped, spaces → `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a markdown document offers: its headings' and explicit `<a id="…">` ones. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) anchors.add(headingAnchor(match[1]!));
  for (const match of markdown.matchAll(/<a id="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** Links between docs (`(api.md#13-cors)`, `(#configuration)`) whose anchor the target lacks. */
export function brokenDocLinks(
  markdown: string,
  self: string,
  readDoc: (doc: string) => string | undefined,
): string[] {
  const broken: string[] = [];
  for (const match of markdown.matchAll(/\]\(([a-z0-9-]*\.md)?#([^)\s]+)\)/g)) {
    const doc = match[1] ?? self;
    const text = readDoc(doc);
    if (text === undefined || !anchorsOf(text).has(match[2]!)) broken.push(`${doc}#${match[2]}`);
  }
  return broken;
}
