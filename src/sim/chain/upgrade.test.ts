import { describe, expect, it } from 'vitest';
import { createProtoRegistry } from '../../shared/proto/registry.js';
import { newProblems, renderMessage } from '../../shared/proto/render.js';
import { UPGRADE_MSG_SCHEMA, UPGRADE_MSG_TYPE, msgNewThing } from './upgrade.js';

describe('MsgNewThing (docs/node-data.md §4.3)', () => {
  const registry = createProtoRegistry([UPGRADE_MSG_SCHEMA]);

  it.each([0, 1, 127, 128, 2 ** 40 + 3])(
    'thing %i: its bytes decode by its schema to its REST JSON',
    (id) => {
      const msg = msgNewThing('init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq9x7dva', id);
      const value = Buffer.from(msg.value);
      const problems = newProblems();
      const fields = renderMessage(registry, UPGRADE_MSG_SCHEMA, value, 0, value.length, problems);
      expect(problems.unknownFields.size).toBe(0);
      expect({ '@type': UPGRADE_MSG_TYPE, ...fields }).toEqual(JSON.parse(msg.json));
    },
  );

  it('is unknown to this release’s registry', () => {
    expect(createProtoRegistry().byTypeUrl(UPGRADE_MSG_TYPE)).toBeUndefined();
    expect(registry.byTypeUrl(UPGRADE_MSG_TYPE)).toBe(UPGRADE_MSG_SCHEMA);
  });
});
