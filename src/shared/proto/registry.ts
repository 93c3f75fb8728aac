import { reflectPackages } from './reflect.js';
import type { MessageSchema } from './schema.js';
import { extraSchemas } from './extra-schemas.js';

/**
 * Message registry: full proto name → field schema, for every message in
 * `@initia/initia.proto` 1.0.6 and `cosmjs-types` 0.11 (initia.proto wins on a clash, because it
 * follows the SDK fork that rollups run), plus hand-written schemas for modules neither package
 * carries (OPinit). Built by the caller and passed around explicitly; the packages under it are read
 * once per process (reflectPackages).
 */
export interface ProtoRegistry {
  /** Schema for a full name (`cosmos.bank.v1beta1.MsgSend`). */
  message(fullName: string): MessageSchema | undefined;
  /** Schema for an Any type URL (`/cosmos.bank.v1beta1.MsgSend`, any host prefix). */
  byTypeUrl(typeUrl: string): MessageSchema | undefined;
  readonly size: number;
}

/**
 * `extensions`: schemas of types neither package carries, added after them (a release's own
 * additions; tests use them to stand for a later release that knows a new message type).
 */
export function createProtoRegistry(extensions: readonly MessageSchema[] = []): ProtoRegistry {
  const messages = new Map(reflectPackages().messages);
  for (const schema of [...extraSchemas(), ...extensions]) {
    if (!messages.has(schema.fullName)) messages.set(schema.fullName, schema);
  }
  return {
    message: (fullName) => messages.get(fullName),
    byTypeUrl: (typeUrl) => messages.get(typeUrl.slice(typeUrl.lastIndexOf('/') + 1)),
    size: messages.size,
  };
}
