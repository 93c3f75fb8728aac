import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REAL_SAMPLES } from '../../fixtures/decode/samples.js';

export interface Attr {
  key: string;
  value?: string;
  index?: boolean;
}
export interface Ev {
  type: string;
  attributes?: Attr[];
}

export const SAMPLES = REAL_SAMPLES;

/** A recorded tx_response (or any export) from a real fixture file. */
export function sample<T = { events: Ev[]; code: number }>(file: string, exportName: string): T {
  const all = JSON.parse(readFileSync(path.join(SAMPLES, file), 'utf8')) as Record<string, unknown>;
  const value = all[exportName];
  if (value === undefined) throw new Error(`${file} has no ${exportName}`);
  return value as T;
}

/** Structure of an event list: type, Move type tag, attribute keys in order. */
export function shape(events: Ev[]): string[] {
  return events.map((e) => {
    const attrs = e.attributes ?? [];
    const tag = e.type === 'move' ? `<${attrs.find((a) => a.key === 'type_tag')?.value ?? ''}>` : '';
    return `${e.type}${tag}(${attrs.map((a) => a.key).join(',')})`;
  });
}

export const isOwnerEvent = (e: Ev): boolean =>
  e.type === 'move' &&
  (e.attributes ?? []).some((a) => a.key === 'type_tag' && /OwnerEvent$/.test(a.value ?? ''));

export const isStoreCreation = (e: Ev): boolean =>
  e.type === 'move' &&
  (e.attributes ?? []).some(
    (a) => a.key === 'type_tag' && /object::CreateEvent$|PrimaryStoreCreatedEvent$/.test(a.value ?? ''),
  );

export function value(e: Ev, key: string): string {
  return (e.attributes ?? []).find((a) => a.key === key)?.value ?? '';
}
