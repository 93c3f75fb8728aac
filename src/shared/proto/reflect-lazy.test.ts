import { describe, expect, it } from 'vitest';
import { reflectPackages } from './reflect.js';
import { lazySchemas } from './reflect-lazy.js';

/**
 * The lazy lookup is the registry's source, reflectPackages the reference (every module read at
 * once, checked against the generated codecs in reflect.test.ts): both give the same schema for
 * every name, and the lazy one nothing for what the reference skipped or never saw.
 */
describe('lazySchemas', () => {
  it('gives every name the schema reflectPackages gives, and none for skipped or unknown names', () => {
    const lookup = lazySchemas();
    // Asked first, before the rest are loaded: a type and the types it refers to.
    const send = lookup('cosmos.bank.v1beta1.MsgSend');
    expect(send?.byName.get('amount')?.typeName).toBe('cosmos.base.v1beta1.Coin');
    const reflected = reflectPackages();
    expect(reflected.messages.size).toBeGreaterThan(1000);
    for (const [name, schema] of reflected.messages) expect(lookup(name), name).toEqual(schema);
    for (const name of reflected.skipped) expect(lookup(name), name).toBeUndefined();
    for (const name of ['cosmos.bank.v1beta1.NoSuchMsg', 'no.such.pkg.Msg', 'cosmos', ''])
      expect(lookup(name), name).toBeUndefined();
  });
});
