import path from 'node:path';
import { importVisitors, resolveSpecifier } from './module-graph.js';

/**
 * Which rooms of src/ a room may import (docs/architecture.md, "Layers"), `import type` included.
 * The first entry whose `room` holds the importing file applies; a file outside every room (or a
 * test beside its file) is not checked. Packages are not checked. Paths are repo-relative; a trailing `/` means a folder.
 */
export const LAYERS = [
  // The store's rooms: the driver stands alone; readers share only the driver; writers also read
  // (a writer checks what is stored before it writes, e.g. the chain it holds).
  { room: 'src/store/driver/', may: ['src/shared/'] },
  {
    room: 'src/store/readers/',
    may: ['src/store/driver/', 'src/store/pagination.ts', 'src/shared/', 'src/wire/'],
  },
  {
    room: 'src/store/writers/',
    may: ['src/store/driver/', 'src/store/readers/', 'src/shared/', 'src/wire/'],
  },
  { room: 'src/store/migrations/', may: ['src/store/driver/', 'src/shared/', 'src/wire/'] },
  { room: 'src/store/', may: ['src/shared/', 'src/wire/'] },
  { room: 'src/shared/', may: [] },
  { room: 'src/wire/', may: ['src/shared/'] },
  { room: 'src/node/', may: ['src/shared/'] },
  { room: 'src/ingest/', may: ['src/node/', 'src/store/', 'src/shared/', 'src/wire/'] },
  // The API reads through store/readers; it opens the pool (driver) and guards its parameters.
  {
    room: 'src/api/',
    may: ['src/store/readers/', 'src/store/driver/', 'src/store/pagination.ts', 'src/shared/', 'src/wire/'],
  },
  // `vip scores` reads the index through store/readers (the one part of vip that touches the store).
  {
    room: 'src/vip/',
    may: ['src/node/', 'src/store/readers/', 'src/store/driver/', 'src/shared/', 'src/wire/'],
  },
  { room: 'src/sim/', may: ['src/shared/'] },
  // src/bin (wiring) may import anything, so it has no entry.
];

const roomOf = (file) => LAYERS.find((entry) => file.startsWith(entry.room));
const within = (file, place) => (place.endsWith('/') ? file.startsWith(place) : file === place);

export const layers = {
  meta: {
    type: 'problem',
    docs: { description: "Keep src/'s rooms layered: each imports only the rooms below it." },
    schema: [],
    messages: {
      upward:
        '{{room}} may not import {{target}} (layers in docs/architecture.md): it may import its own room and {{may}}.',
    },
  },
  create(context) {
    const repoPath = (file) => path.relative(context.cwd, file).split(path.sep).join('/');
    const self = repoPath(context.filename);
    const entry = roomOf(self);
    if (entry === undefined || /\.test\.ts$/.test(self)) return {};
    return importVisitors((node, specifier) => {
      const resolved = resolveSpecifier(path.resolve(context.filename), specifier);
      if (resolved === undefined) return;
      const target = repoPath(resolved);
      if (within(target, entry.room) || entry.may.some((place) => within(target, place))) return;
      const may = entry.may.length > 0 ? entry.may.join(', ') : 'nothing else';
      context.report({ node, messageId: 'upward', data: { room: entry.room, target, may } });
    });
  },
};
