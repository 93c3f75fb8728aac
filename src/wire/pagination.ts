import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { nullableString, ref } from './schema.js';

/** The pagination object every list answer ends with, and the list envelope around it. */
export const PAGINATION_FORMAT_VERSION = 1;

export const PaginationResponse = Type.Object(
  {
    previous_key: nullableString('base64 key of the previous page (offset mode only)'),
    next_key: nullableString('base64 key of the next page; null when no row follows'),
    total: Type.String({ description: 'decimal; "-1" when the count timed out' }),
  },
  { $id: 'common.PaginationResponse' },
);
export type Pagination = Static<typeof PaginationResponse>;

/** `{"<listKey>":[<item>…],"pagination":{…}}` under the `$id` the reference names it by. */
export function listEnvelope(id: string, listKey: string, itemId: string): TSchema {
  return Type.Object(
    { [listKey]: Type.Array(ref(itemId)), pagination: ref('common.PaginationResponse') },
    { $id: id },
  );
}

/**
 * The envelope's text around its items: items are spliced in as stored text, so key order and big
 * numbers stay exactly as rendered. Pagination keys in schema order: previous_key, next_key, total.
 */
export function listEnvelopeText(listKey: string, pagination: Pagination): { head: string; tail: string } {
  const { previous_key, next_key, total } = pagination;
  return {
    head: `{"${listKey}":[`,
    tail: `],"pagination":${JSON.stringify({ previous_key, next_key, total })}}`,
  };
}
