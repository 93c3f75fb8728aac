import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Building blocks of the served documents' TypeBox schemas. A schema's `$id` is the reference
 * API's definition name (docs/api.md); a document refers to another with `ref(...)`, which the
 * OpenAPI document and the route validator both resolve through `app.addSchema`.
 */

/** A string that may be null: OpenAPI 3.0 `nullable`, which Ajv also understands. */
export const nullableString = (description?: string) =>
  Type.Unsafe<string | null>({ type: 'string', nullable: true, ...(description ? { description } : {}) });

/** A reference to a registered schema by its `$id`. */
export function ref(id: string): TSchema {
  return Type.Unsafe({ $ref: `${id}#` });
}
