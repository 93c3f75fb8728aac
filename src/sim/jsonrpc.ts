import type { RawResponse } from './http.js';
import type { SimRpcResult } from './types.js';

/** A method's outcome; `result` is raw JSON text. */
export type Outcome = { result: string } | { error: { code: number; message: string; data?: string } };

export type MethodCall = (method: string, params: unknown) => Promise<Outcome | undefined>;

export function fromExtension(r: SimRpcResult): Outcome {
  return 'result' in r ? { result: JSON.stringify(r.result ?? null) } : { error: r.error };
}

function idText(id: unknown): string {
  return typeof id === 'number' || typeof id === 'string' ? JSON.stringify(id) : 'null';
}

export function envelope(id: string, outcome: Outcome): string {
  if ('result' in outcome) return `{"jsonrpc":"2.0","id":${id},"result":${outcome.result}}`;
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(outcome.error)}}`;
}

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
  const answers: string[] = [];
  for (const request of requests) {
    if (request === null || typeof request !== 'object') {
      answers.push(envelope('null', { error: { code: -32600, message: 'Invalid Request' } }));
      continue;
    }
    if (!('id' in request)) continue;
    const method = typeof request.method === 'string' ? request.method : '';
    const outcome = (await call(method, request.params)) ?? notFound(method);
    answers.push(envelope(idText(request.id), outcome));
  }
  if (answers.length === 0) return { status: 200, body: batch ? '[]' : '' };
  return { status: 200, body: batch ? `[${answers.join(',')}]` : answers[0]! };
}
