import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, InputError, NotFoundError, type ErrorCode } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

/**
 * The JSON error model of docs/api.md §0.1: `{code, message, details}` with gRPC codes
 * 3 invalid argument (400, 413, 431), 5 not found (404), 8 resource exhausted (429, the optional
 * rate limit), 12 unimplemented (404/405/501), 14 unavailable (503), 13 internal (500).
 * 5xx messages are generic (except the documented 503 causes); causes go to the log.
 */
export const GrpcCode = {
  invalidArgument: 3,
  notFound: 5,
  resourceExhausted: 8,
  /** A stream resume point further back than the replay bound (410). */
  outOfRange: 11,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
} as const;

export interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

/** An error that already knows its HTTP status and gRPC code. */
export class HttpError extends AppError {
  readonly status: number;
  readonly grpcCode: number;
  constructor(status: number, grpcCode: number, message: string, code: ErrorCode = 'http_error') {
    super(code, message);
    this.name = 'HttpError';
    this.status = status;
    this.grpcCode = grpcCode;
  }
}

/**
 * The database cannot serve this process right now (down, slow, or refusing its credentials), or
 * was reset between a page's two statements (`db_rows_changed`, the row cache's read).
 */
const DATABASE_AWAY = new Set([
  'db_unavailable',
  'db_rows_changed',
  'db_statement_timeout',
  'db_auth_failed',
  'db_missing',
  'db_rejected',
]);

export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; log: boolean } {
  const body = (code: number, message: string): ErrorBody => ({ code, message, details: [] });
  if (err instanceof HttpError)
    return { status: err.status, body: body(err.grpcCode, err.message), log: false };
  if (err instanceof InputError)
    return { status: 400, body: body(GrpcCode.invalidArgument, err.message), log: false };
  if (err instanceof NotFoundError)
    return { status: 404, body: body(GrpcCode.notFound, err.message), log: false };
  if (err instanceof AppError && err.code === 'overloaded') {
    return { status: 503, body: body(GrpcCode.unavailable, err.message), log: false };
  }
  if (err instanceof AppError && DATABASE_AWAY.has(err.code)) {
    return { status: 503, body: body(GrpcCode.unavailable, 'Service Unavailable'), log: true };
  }
  const status = (err as Partial<FastifyError>).statusCode;
  // Fastify's own client errors (validation, bad URL, media type): their text names the problem.
  if (!(err instanceof AppError) && typeof status === 'number' && status >= 400 && status < 500) {
    const grpc = status === 404 ? GrpcCode.notFound : GrpcCode.invalidArgument;
    return { status, body: body(grpc, (err as Error).message), log: false };
  }
  return { status: 500, body: body(GrpcCode.internal, 'Internal Server Error'), log: true };
}

function sendError(reply: FastifyReply, status: number, body: ErrorBody): void {
  if (status === 503) void reply.header('retry-after', '1');
  void reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
}

/** Installs the error and not-found handlers: every failure is JSON, never a stack trace. */
/** `notFound` names what a path of no route misses (default: `Cannot GET /path`). */
export function installErrorHandlers(
  app: FastifyInstance,
  logger: Logger,
  notFound: (request: FastifyRequest, path: string) => HttpError = cannotRoute,
): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, log } = toErrorResponse(err);
    if (log) {
      logger.error({ err, method: request.method, url: request.url, status }, 'request failed');
    }
    sendError(reply, status, body);
  });
  app.setNotFoundHandler((request, reply) => {
    const error = notFound(request, request.url.split('?', 1)[0] ?? request.url);
    sendError(reply, error.status, { code: error.grpcCode, message: error.message, details: [] });
  });
}

const cannotRoute = (request: FastifyRequest, path: string) =>
  new HttpError(404, GrpcCode.notFound, `Cannot ${request.method} ${path}`, 'not_found');

export const methodNotAllowed = () => new HttpError(405, GrpcCode.unimplemented, 'Method Not Allowed');
