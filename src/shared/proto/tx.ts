import { encodeMessage } from './encode.js';
import type { ProtoRegistry } from './registry.js';
import type { JsonObject, RenderProblems } from './render.js';
import { newProblems, renderMessage } from './render.js';
import type { MessageSchema } from './schema.js';
import { ProtoDecodeError, WireReader, WireWriter, base64 } from './wire.js';

/** The REST gateway's tx object: `{ body, auth_info, signatures }`, no top-level "@type". */
export interface RestTx extends JsonObject {
  body: JsonObject;
  auth_info: JsonObject;
  signatures: string[];
}

export interface RenderedTx {
  readonly tx: RestTx;
  /** Message type URLs (with the leading '/') that the registry does not know. */
  readonly unknownTypes: string[];
  /** Wire fields the registry's schemas do not know, as `full.Name#no`. */
  readonly unknownFields: string[];
}

interface TxRawParts {
  body: [number, number];
  authInfo: [number, number];
  signatures: [number, number][];
}

/** TxRaw is parsed strictly, as rollytics does: any other field fails the tx. */
export function splitTxRaw(bytes: Uint8Array): TxRawParts {
  const reader = new WireReader(bytes);
  const parts: TxRawParts = { body: [0, 0], authInfo: [0, 0], signatures: [] };
  while (reader.pos < bytes.length) {
    const tag = reader.uint32();
    if (tag === 10) parts.body = reader.lengthDelimited();
    else if (tag === 18) parts.authInfo = reader.lengthDelimited();
    else if (tag === 26) parts.signatures.push(reader.lengthDelimited());
    else
      throw new ProtoDecodeError(`malformed tx: unexpected TxRaw field #${tag >>> 3} (wire type ${tag & 7})`);
  }
  return parts;
}

function requireSchema(registry: ProtoRegistry, name: string): MessageSchema {
  const schema = registry.message(name);
  if (!schema) throw new ProtoDecodeError(`protobuf registry lacks ${name}`);
  return schema;
}

export function renderRestTx(registry: ProtoRegistry, bytes: Uint8Array): RenderedTx {
  const parts = splitTxRaw(bytes);
  const problems: RenderProblems = newProblems();
  const body = renderMessage(
    registry,
    requireSchema(registry, 'cosmos.tx.v1beta1.TxBody'),
    bytes,
    parts.body[0],
    parts.body[1],
    problems,
  );
  const authInfo = renderMessage(
    registry,
    requireSchema(registry, 'cosmos.tx.v1beta1.AuthInfo'),
    bytes,
    parts.authInfo[0],
    parts.authInfo[1],
    problems,
  );
  const signatures = parts.signatures.map(([s, e]) => base64(bytes, s, e));
  return {
    tx: { body, auth_info: authInfo, signatures },
    unknownTypes: [...problems.unknownTypes],
    unknownFields: [...problems.unknownFields],
  };
}

/** REST tx JSON (with or without a top-level "@type") → TxRaw bytes. */
export function encodeTxFromRestJson(registry: ProtoRegistry, restTx: unknown): Uint8Array {
  const tx = restTx as { body?: unknown; auth_info?: unknown; signatures?: unknown };
  const bodyBytes = encodeMessage(
    registry,
    requireSchema(registry, 'cosmos.tx.v1beta1.TxBody'),
    tx.body,
    'tx.body',
  );
  const authBytes = encodeMessage(
    registry,
    requireSchema(registry, 'cosmos.tx.v1beta1.AuthInfo'),
    tx.auth_info,
    'tx.auth_info',
  );
  const w = new WireWriter();
  if (bodyBytes.length > 0) {
    w.tag(1, 2);
    w.lengthDelimited(bodyBytes);
  }
  if (authBytes.length > 0) {
    w.tag(2, 2);
    w.lengthDelimited(authBytes);
  }
  const signatures = Array.isArray(tx.signatures) ? tx.signatures : [];
  for (const sig of signatures) {
    w.tag(3, 2);
    w.lengthDelimited(Buffer.from(String(sig ?? ''), 'base64'));
  }
  return w.finish();
}
