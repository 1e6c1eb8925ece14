/**
 * The one HTTP client of the web app. Failures become ApiError whose message follows spec §8.1: the body's
 * `error` field, then `message`, then the first value of the body object, then a plain-text body (not an
 * HTML page), else 'An unexpected error occurred.'. No default timeout (spec §7.9).
 */
import { validationErrorWords } from '@sales-agent/shared/validation-words';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const UNEXPECTED_ERROR = 'An unexpected error occurred.';

export function errorTextFrom(body: unknown): string {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    // A request the server's schema refused, in words (issue 24): never "Invalid request (querystring): …".
    if (record.code === 'VALIDATION_ERROR' && typeof record.error === 'string' && record.error) return validationErrorWords(record.error);
    for (const key of ['error', 'message']) {
      if (typeof record[key] === 'string' && record[key]) return record[key] as string;
    }
    const first = Object.values(record)[0];
    if (typeof first === 'string' && first) return first;
    if (first !== undefined && first !== null && typeof first !== 'object') return String(first);
    return UNEXPECTED_ERROR;
  }
  if (typeof body === 'string') {
    const text = body.trim();
    if (text && !/^<(!doctype|html)/i.test(text)) return text;
  }
  return UNEXPECTED_ERROR;
}

type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  /** A JSON-serialisable body, or a string/FormData sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Sends a request and returns status and parsed body; throws ApiError for 4xx/5xx and network failures. */
export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; data: T }> {
  const headers: Record<string, string> = { ...options.headers };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData || typeof options.body === 'string') {
    body = options.body;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return readResponse<T>(fetch(withQuery(path, options.query), { method, headers, body, credentials: 'same-origin', signal: options.signal }));
}

/** Reads a fetch's answer as apiRequest does: parsed JSON (or text), ApiError for 4xx/5xx and network failures. */
export async function readResponse<T>(sent: Promise<Response>): Promise<{ status: number; data: T }> {
  let response: Response;
  try {
    response = await sent;
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'Could not reach the server. Check your connection and try again.', null);
  }
  const text = await response.text();
  let data: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('application/json') && text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) throw new ApiError(response.status, errorTextFrom(data), data);
  return { status: response.status, data: data as T };
}

export const api = {
  get: <T>(path: string, query?: Query) => apiRequest<T>('GET', path, { query }).then((r) => r.data),
  post: <T>(path: string, body?: unknown, query?: Query) => apiRequest<T>('POST', path, { body, query }).then((r) => r.data),
  patch: <T>(path: string, body?: unknown) => apiRequest<T>('PATCH', path, { body }).then((r) => r.data),
  put: <T>(path: string, body?: unknown) => apiRequest<T>('PUT', path, { body }).then((r) => r.data),
  delete: <T>(path: string, body?: unknown) => apiRequest<T>('DELETE', path, { body }).then((r) => r.data),
};

/** The text to show for any thrown value. */
export const errorMessage = (err: unknown) => (err instanceof Error && err.message ? err.message : UNEXPECTED_ERROR);
