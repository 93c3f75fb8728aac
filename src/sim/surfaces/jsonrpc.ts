import type { RawResponse } from './http.js';
import type { SimRpcResult } from '../types.js';

/**
 * A method's outcome: raw JSON text, or the same as UTF-8 bytes (cached blocks, so large answers
 * are not re-encoded per request), or an error.
 */
export type Outcome =
  { result: string } | { resultBytes: Buffer } | { error: { code: number; message: string; data?: string } };

export type MethodCall = (method: string, params: unknown) => Promise<Outcome | undefined>;

export function fromExtension(r: SimRpcResult): Outcome {
  return 'result' in r ? { result: JSON.stringify(r.result ?? null) } : { error: r.error };
}

function idText(id: unknown): string {
  return typeof id === 'number' || typeof id === 'string' ? JSON.stringify(id) : 'null';
}

export function envelope(id: string, outcome: Outcome): string {
  if ('result' in outcome) return `{"jsonrpc":"2.0","id":${id},"result":${outcome.result}}`;
  if ('resultBytes' in outcome)
    return `{"jsonrpc":"2.0","id":${id},"result":${outcome.resultBytes.toString('utf8')}}`;
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(outcome.error)}}`;
}

/** The envelope of one answer as byte chunks (reusing cached result bytes). */
function envelopeChunks(id: string, outcome: Outcome): Buffer[] {
  if ('resultBytes' in outcome) {
    return [Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":`), outcome.resultBytes, CLOSE];
  }
  return [Buffer.from(envelope(id, outcome))];
}
const CLOSE = Buffer.from('}');
const COMMA = Buffer.from(',');

/**
 * POST framing shared by CometBFT and the EVM server: single or batch; notifications (no id)
 * are skipped; a body that is not JSON is a parse error.
 */
export async function handleJsonRpcPost(
  body: unknown,
  call: MethodCall,
  notFound: (method: string) => Outcome,
  parseError: () => RawResponse,
): Promise<RawResponse> {
  if (body === undefined || body === null || typeof body !== 'object') return parseError();
  const batch = Array.isArray(body);
  const requests = (batch ? body : [body]) as Array<Record<string, unknown>>;
  const chunks: Buffer[] = [];
  let answers = 0;
  for (const request of requests) {
    if (answers > 0) chunks.push(COMMA);
    if (request === null || typeof request !== 'object') {
      chunks.push(Buffer.from(envelope('null', { error: { code: -32600, message: 'Invalid Request' } })));
      answers++;
      continue;
    }
    if (!('id' in request)) {
      if (answers > 0) chunks.pop();
      continue;
    }
    const method = typeof request.method === 'string' ? request.method : '';
    const outcome = (await call(method, request.params)) ?? notFound(method);
    chunks.push(...envelopeChunks(idText(request.id), outcome));
    answers++;
  }
  if (answers === 0) return { status: 200, body: batch ? '[]' : '' };
  if (batch) return { status: 200, body: Buffer.concat([Buffer.from('['), ...chunks, Buffer.from(']')]) };
  return { status: 200, body: Buffer.concat(chunks) };
}
