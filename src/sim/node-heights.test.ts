import { describe, expect, it } from 'vitest';
import { haltableHead } from './node-heights.js';

describe('haltableHead', () => {
  it('serves no block above the halt height until released, and never more than the chain has', () => {
    let chain = 10;
    const node = haltableHead(() => chain);
    node.halt(4);
    expect(node.head()).toBe(4);
    chain = 3;
    expect(node.head()).toBe(3);
    chain = 12;
    node.halt(undefined);
    expect(node.head()).toBe(12);
    expect(() => node.halt(0)).toThrow(/halt height/);
  });
});
