import type { FastifyServerOptions } from 'fastify';
import { stdSerializers } from 'pino';
import type { AppConfig } from '../config/env.ts';
import { redactText } from '../lib/redact.ts';

/**
 * The one logger configuration (docs/security.md "Logs"). Every log line goes through it: secrets in headers,
 * bodies and query strings are replaced by "[redacted]", and a failed database query is logged with its
 * statement and the database's error, never with its parameter values (they carry message texts, tokens and
 * passwords, and once made a single 922 KB line).
 */
export function loggerOptions(config: Pick<AppConfig, 'LOG_LEVEL'>): NonNullable<FastifyServerOptions['logger']> {
  return {
    level: config.LOG_LEVEL,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // The last step of every line: secrets by value and by shape, wherever they are (lib/redact.ts), so a
    // provider's "Malformed access token EAAB…" in an error message or a `reason` field is gone too.
    hooks: { streamWrite: (line: string) => redactText(line) },
    serializers: {
      err: serializeError as never,
      error: (value: unknown) => (value instanceof Error ? serializeError(value) : value),
      req: serializeRequest as never,
    },
  };
}

/** Header names whose values are credentials or signatures over credentials. */
const SECRET_HEADERS = ['authorization', 'cookie', 'x-hub-signature', 'x-hub-signature-256', 'x-twilio-signature', 'x-api-key', 'proxy-authorization'];
/** Field names that hold a secret wherever they appear in a logged object. */
const SECRET_FIELDS = [
  'password',
  'newPassword',
  'currentPassword',
  'passwordHash',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'apiKey',
  'api_key',
  'appSecret',
  'secret',
  'clientSecret',
  'client_secret',
  'authToken',
  'authorization',
];

export const REDACT_PATHS = [
  ...SECRET_HEADERS.map((h) => `req.headers["${h}"]`),
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
];

/** Query parameters whose values must not reach a log line (OAuth codes and tokens, webhook verify tokens). */
const SECRET_QUERY = /^(access_token|token|code|state|hub\.verify_token|client_secret|api_key|apikey|key|password|signature)$/i;

/** Replaces the values of secret query parameters in a URL; the path and other parameters stay readable. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        /* keep the raw name */
      }
      return eq >= 0 && SECRET_QUERY.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
  routeOptions?: { url?: string };
}

function serializeRequest(request: LoggedRequest) {
  // Something else logged under `req` (not a request): left to the redaction paths.
  if (typeof request?.url !== 'string') return request;
  return {
    method: request.method,
    url: redactUrl(request.url),
    hostname: request.hostname,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Driver error fields worth logging; `detail` and `where` are left out because they quote row values. */
const DB_ERROR_FIELDS = ['code', 'severity', 'schema', 'table', 'column', 'constraint', 'routine'] as const;

/**
 * drizzle wraps a failed statement in DrizzleQueryError, whose message and `params` hold every parameter
 * value. It is logged as the statement plus the database's own error; other errors go through pino's
 * standard serializer (with their causes, each of them treated the same way).
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  if (isQueryError(err)) {
    const cause = err.cause as (Error & Record<string, unknown>) | undefined;
    const db: Record<string, unknown> = {};
    if (cause) for (const field of DB_ERROR_FIELDS) if (cause[field] !== undefined) db[field] = cause[field];
    return {
      type: 'DrizzleQueryError',
      message: `Failed query: ${err.query}${cause?.message ? `: ${cause.message}` : ''}`,
      query: err.query,
      paramCount: Array.isArray(err.params) ? err.params.length : undefined,
      ...(cause ? { cause: { type: cause.name, message: cause.message, ...db } } : {}),
      // The stack's first lines repeat the message with the parameters: keep only the frames.
      stack: frames(err.stack),
    };
  }
  if (!hasQueryErrorCause(err)) {
    // Stored as a job's last error too (jobs/runner.ts): the message and stack lose their secrets here.
    const plain = stdSerializers.err(err) as unknown as Record<string, unknown>;
    return { ...plain, message: redactText(String(plain.message ?? '')), stack: typeof plain.stack === 'string' ? redactText(plain.stack) : plain.stack };
  }
  // pino's serializer folds the causes' messages and stacks into the error's own; do it by hand instead so
  // the query error's parameters do not ride along.
  return {
    ...(stdSerializers.err(err) as unknown as Record<string, unknown>),
    message: redactText(err.message),
    stack: err.stack && redactText(err.stack),
    cause: serializeError(err.cause),
  };
}

function frames(stack: string | undefined): string | undefined {
  return stack
    ?.split('\n')
    .filter((line) => /^\s+at \S/.test(line))
    .join('\n');
}

function hasQueryErrorCause(err: Error): boolean {
  for (let cause = err.cause, depth = 0; cause instanceof Error && depth < 10; cause = cause.cause, depth++) {
    if (isQueryError(cause)) return true;
  }
  return false;
}

function isQueryError(err: Error): err is Error & { query: string; params: unknown[] } {
  return typeof (err as { query?: unknown }).query === 'string' && 'params' in err;
}
