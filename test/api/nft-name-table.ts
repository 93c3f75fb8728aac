/**
 * `/indexer/nft/v1/collections/by_name/{name}` written out from the spec (docs/api.md §4.6.3, copied
 * here in words): the path segment, percent-decoded (unlike the reference, docs/api.md §0.11), and each
 * collection's name and origin name lose every run of characters that are not Unicode letters,
 * marks or digits, then are lower-cased; a collection matches when either of its keys contains the
 * query's key, and an empty query key matches every collection.
 *
 * Each row is worked out by hand against the names seeded by nft-seed.ts (the origin name
 * "L1 Kitties" belongs to "ibc/ABCDEF"), not computed by the function the server uses, so a
 * change to the normalisation fails here. A client sends non-ASCII in the path percent-encoded
 * (raw bytes are refused before routing); most Unicode rows are ASCII queries whose answer depends
 * on how non-ASCII characters in the names are treated.
 */
export const BY_NAME: readonly (readonly [query: string, names: readonly string[] | 'all'])[] = [
  // Case, punctuation and spaces are ignored on both sides.
  ['mycollection', ['My Collection', 'my-collection 2']],
  ['MY-COLLECTION', ['My Collection', 'my-collection 2']],
  ['collection2', ['my-collection 2']],
  ['InitiaBadges', ['Initia Badges']],
  ['badges', ['Initia Badges', 'Badges of Honour']],
  ['ZETA', ['Zeta']],
  // The origin name matches as well as the name.
  ['l1kitties', ['ibc/ABCDEF']],
  ['L1-Kitties!', ['ibc/ABCDEF']],
  ['ibc', ['ibc/ABCDEF']],
  ['abcdef', ['ibc/ABCDEF']],
  // Percent-decoded first: "%20" is a space, "%2F" a slash, "%C3%9C" is "Ü".
  ['My%20Collection', ['My Collection', 'my-collection 2']],
  ['my%2dcollection%202', ['my-collection 2']],
  ['ibc%2FABCDEF', ['ibc/ABCDEF']],
  ['%C3%9Cn%C3%AFcode', ['Ünïcode Çats']],
  ['%C3%BCn%C3%AFcode', ['Ünïcode Çats']],
  ['Caf%C3%A9', []],
  // Nothing left of the query: every collection.
  ['---', 'all'],
  ['nomatch', []],
  // Non-ASCII letters are kept and lower-cased, never folded to ASCII: "Ünïcode Çats" is
  // "ünïcodeçats", so "code" and "ats" are in it, "ncode", "unicode" and "cats" are not.
  ['code', ['Ünïcode Çats']],
  ['ncode', []],
  ['unicode', []],
  ['ats', ['Ünïcode Çats', 'Neon\u2605Cats \u{1F3A8}']],
  ['cats', ['Neon\u2605Cats \u{1F3A8}']],
  // Symbols and emoji are removed: "Neon★Cats 🎨" is "neoncats".
  ['neoncats', ['Neon\u2605Cats \u{1F3A8}']],
  // A combining mark is kept (and not composed with its letter): "cafe\u0301noir".
  ['cafe', ['Cafe\u0301 Noir']],
  ['cafenoir', []],
  ['noir', ['Cafe\u0301 Noir']],
  // A non-ASCII digit is a digit, kept: "level\u0663club".
  ['level', ['Level \u0663 Club']],
  ['levelclub', []],
];
