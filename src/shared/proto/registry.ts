import { lazySchemas } from './reflect-lazy.js';
import type { MessageSchema } from './schema.js';
import { extraSchemas } from './extra-schemas.js';

/**
 * Message registry: full proto name → field schema, for every message in
 * `@initia/initia.proto` 1.0.6 and `cosmjs-types` 0.11 (initia.proto wins on a clash, because it
 * follows the SDK fork that rollups run), plus hand-written schemas for modules neither package
 * carries (OPinit). Built by the caller and passed around explicitly; each type of the packages
 * under it is read once per process, when first asked (lazySchemas).
 */
export interface ProtoRegistry {
  /** Schema for a full name (`cosmos.bank.v1beta1.MsgSend`). */
  message(fullName: string): MessageSchema | undefined;
  /** Schema for an Any type URL (`/cosmos.bank.v1beta1.MsgSend`, any host prefix). */
  byTypeUrl(typeUrl: string): MessageSchema | undefined;
}

/**
 * `extensions`: schemas of types neither package carries, added after them (a release's own
 * additions; tests use them to stand for a later release that knows a new message type).
 */
export function createProtoRegistry(extensions: readonly MessageSchema[] = []): ProtoRegistry {
  const reflected = lazySchemas();
  // The packages win over the additions (a type they carry is theirs), as in a merged table.
  const added = new Map<string, MessageSchema>();
  for (const schema of [...extraSchemas(), ...extensions]) {
    if (!added.has(schema.fullName)) added.set(schema.fullName, schema);
  }
  const message = (fullName: string) => reflected(fullName) ?? added.get(fullName);
  return {
    message,
    byTypeUrl: (typeUrl) => message(typeUrl.slice(typeUrl.lastIndexOf('/') + 1)),
  };
}
