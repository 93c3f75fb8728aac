import { describe, expect, it } from 'vitest';
import { nftNameKey } from './nft-name.js';

/**
 * The by_name key as docs/api.md §4.6.3 states it: drop every run of characters that are not
 * Unicode letters, marks or digits, then lower-case. Each expected key is written out by hand.
 * Names come from the chain in any script, so the stored keys depend on all of it; queries reach
 * the function only as ASCII path segments (see test/api/nft-name-table.ts for the route).
 */
const KEYS: readonly (readonly [input: string, key: string])[] = [
  ['Initia Badges', 'initiabadges'],
  ['my-collection 2', 'mycollection2'],
  ['My%20Collection', 'my20collection'],
  ['---', ''],
  ['', ''],
  ['1,000.5 under_score', '10005underscore'], // "_" is punctuation, not a word character here
  ['tab\tnew\nline', 'tabnewline'],
  // Letters of any script are kept and lower-cased; nothing is folded to ASCII.
  ['ÜNÏCODE Çats', 'ünïcodeçats'],
  ['ΑΒΓ-δ', 'αβγδ'],
  ['日本の NFT', '日本のnft'],
  // Marks are kept and not composed: decomposed and precomposed "é" give different keys.
  ['Cafe\u0301 Noir', 'cafe\u0301noir'],
  ['Caf\u00e9 Noir', 'caf\u00e9noir'],
  // Digits of any kind (decimal, superscript, letter-like numerals) are kept.
  ['Level \u0663 Club', 'level\u0663club'],
  ['x\u00b2', 'x\u00b2'],
  ['\u216b Legion', '\u217blegion'],
  // Symbols, emoji and spaces of every kind are removed.
  ['Neon\u2605Cats \u{1F3A8}', 'neoncats'],
  ['no\u00a0break\u3000space', 'nobreakspace'],
];

describe('nftNameKey, the by_name normalisation', () => {
  it.each(KEYS)('%j → %j', (input, key) => {
    expect(nftNameKey(input)).toBe(key);
  });
});
