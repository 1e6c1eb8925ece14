import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { redactText } from '../../lib/redact.ts';

/**
 * GoHighLevel API v2 over plain fetch (reference/third-party-facts.md "GoHighLevel API v2"): base GHL_API_URL,
 * `Authorization: Bearer <Private Integration token>`, `Version: 2021-07-28`. Errors come as
 * `{ statusCode, message }` (message may be a list for 422) and become AppErrors with a sentence an admin can
 * act on; the token never appears in an answer or a log line.
 */
export const GHL_API_VERSION = '2021-07-28';
/** Retries of one request on 429 (and 5xx/network for reads) before giving up. */
const MAX_RETRIES = 2;
/**
 * A 429 is waited out up to GoHighLevel's documented burst window (100 requests per 10 s per location) before
 * the user sees an error; one that asks for longer than this is answered at once instead of holding the request.
 */
const MAX_WAIT_MS = 10_500;

/**
 * The one place the client waits (backoff, Retry-After): tests replace `sleep` to see the waits asked for
 * without spending them (a clock seam; no request or answer is faked).
 */
export const ghlWaits = { sleep: (ms: number): Promise<unknown> => sleep(ms) };
const TIMEOUT_MS = 15_000;

export interface GhlCredentials {
  apiKey: string;
  locationId: string;
}

export interface GhlPipeline {
  id: string;
  name: string;
  stages: { id: string; name: string }[];
}

export interface GhlOpportunity {
  id: string;
  name?: string;
  pipelineId?: string;
  pipelineStageId?: string;
  contact?: { id?: string; name?: string | null; phone?: string | null; email?: string | null };
}

export interface GhlSearchMeta {
  total?: number;
  startAfter?: number | string | null;
  startAfterId?: string | null;
}

export interface OpportunitySearch {
  pipelineId?: string;
  stageId?: string;
  contactId?: string;
  limit?: number;
  startAfter?: string;
  startAfterId?: string;
}

export class GhlClient {
  constructor(
    private readonly ctx: AppContext,
    private readonly credentials: GhlCredentials,
  ) {}

  /** GET /opportunities/pipelines?locationId= */
  async listPipelines(): Promise<GhlPipeline[]> {
    const body = await this.request<{ pipelines?: GhlPipeline[] }>('GET', '/opportunities/pipelines', {
      query: { locationId: this.credentials.locationId },
    });
    return body.pipelines ?? [];
  }

  /** GET /opportunities/search with cursor paging (startAfter = the last item's timestamp, startAfterId its id). */
  async searchOpportunities(search: OpportunitySearch): Promise<{ opportunities: GhlOpportunity[]; meta: GhlSearchMeta }> {
    const body = await this.request<{ opportunities?: GhlOpportunity[]; meta?: GhlSearchMeta }>('GET', '/opportunities/search', {
      query: {
        location_id: this.credentials.locationId,
        pipeline_id: search.pipelineId,
        pipeline_stage_id: search.stageId,
        contact_id: search.contactId,
        limit: search.limit === undefined ? undefined : String(search.limit),
        startAfter: search.startAfter,
        startAfterId: search.startAfterId,
      },
    });
    return { opportunities: body.opportunities ?? [], meta: body.meta ?? {} };
  }

  /** POST /contacts/{contactId}/notes { body } */
  async addContactNote(contactId: string, text: string): Promise<void> {
    await this.request('POST', `/contacts/${encodeURIComponent(contactId)}/notes`, { body: { body: text } });
  }

  /** PUT /contacts/{id} (partial): the DND settings of an opt-out, say. */
  async updateContact(contactId: string, fields: Record<string, unknown>): Promise<void> {
    await this.request('PUT', `/contacts/${encodeURIComponent(contactId)}`, { body: fields });
  }

  /** PUT /opportunities/{id} { pipelineStageId } */
  async moveOpportunity(opportunityId: string, pipelineStageId: string): Promise<void> {
    await this.request('PUT', `/opportunities/${encodeURIComponent(opportunityId)}`, { body: { pipelineStageId } });
  }

  private async request<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { query?: Record<string, string | undefined>; body?: unknown },
  ): Promise<T> {
    // GHL_API_URL always has a value (env.ts default); its zod type just cannot say so.
    const url = new URL(String(this.ctx.config.GHL_API_URL).replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
    const init: RequestInit = {
      method,
      headers: {
        Authorization: `Bearer ${this.credentials.apiKey}`,
        Version: GHL_API_VERSION,
        Accept: 'application/json',
        ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    };
    // A write that may have reached GoHighLevel is not repeated here (a note would be added twice); the
    // write-back job retries as a whole instead. A 429 is safe to repeat: GoHighLevel refused the request.
    const retriesServerErrors = method === 'GET';
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (err) {
        if (retriesServerErrors && attempt < MAX_RETRIES) {
          await ghlWaits.sleep(backoffMs(attempt));
          continue;
        }
        this.ctx.log.warn({ path, err: (err as Error).name }, 'GoHighLevel unreachable');
        throw new AppError(502, 'CRM_UNAVAILABLE', 'GoHighLevel could not be reached. Please try again in a moment.');
      }
      if (response.ok) {
        const text = await response.text();
        if (!text) return {} as T;
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new AppError(502, 'CRM_UNAVAILABLE', 'GoHighLevel answered with something that is not JSON.');
        }
      }
      const wait = response.status === 429 ? rateLimitWaitMs(response.headers, attempt) : backoffMs(attempt);
      const retryable = response.status === 429 || (retriesServerErrors && response.status >= 500);
      if (retryable && attempt < MAX_RETRIES && wait <= MAX_WAIT_MS) {
        await response.body?.cancel();
        await ghlWaits.sleep(wait);
        continue;
      }
      const message = this.scrub(await errorMessageOf(response));
      this.ctx.log.warn({ path, status: response.status, message }, 'GoHighLevel request failed');
      throw toAppError(response.status, message, wait);
    }
  }

  /** GoHighLevel does not echo tokens, but an error text must never carry one, whatever the provider says. */
  private scrub(text: string): string {
    return redactText(text, [this.credentials.apiKey]);
  }
}

const backoffMs = (attempt: number) => 200 * 2 ** attempt;

/**
 * How long a 429 asks us to wait: `Retry-After` (seconds) when sent, else the rest of the burst window
 * (`X-RateLimit-Interval-Milliseconds`, 10 s for 100 requests) when `X-RateLimit-Remaining` is 0, else a short backoff.
 */
function rateLimitWaitMs(headers: Headers, attempt: number): number {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && retryAfter.trim() !== '' && Number.isFinite(Number(retryAfter))) return Math.max(0, Number(retryAfter) * 1000);
  const remaining = headers.get('x-ratelimit-remaining');
  const interval = Number(headers.get('x-ratelimit-interval-milliseconds'));
  if (remaining === '0' && Number.isFinite(interval) && interval > 0) return interval;
  return backoffMs(attempt);
}

async function errorMessageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    const message = Array.isArray(body.message) ? body.message.join('; ') : body.message ?? body.error;
    if (typeof message === 'string' && message.trim()) return message.trim().slice(0, 300);
  } catch {
    // An HTML error page from a proxy: the status says enough.
  }
  return `HTTP ${response.status}`;
}

function toAppError(status: number, message: string, waitMs: number): AppError {
  if (status === 401) {
    return new AppError(502, 'CRM_AUTH_FAILED', `GoHighLevel refused the API key (${message}). Check apiKey in this type's config (or GHL_API_KEY).`);
  }
  if (status === 403) {
    return new AppError(502, 'CRM_FORBIDDEN', `GoHighLevel denied access (${message}). Check the token's scopes and the locationId.`);
  }
  if (status === 400 || status === 422) return new AppError(400, 'CRM_REJECTED', `GoHighLevel rejected the request: ${message}`);
  if (status === 404) return new AppError(404, 'CRM_NOT_FOUND', `GoHighLevel has no such record: ${message}`);
  if (status === 429) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new AppError(429, 'CRM_RATE_LIMITED', `GoHighLevel's rate limit (100 requests per 10 seconds) was reached. Please try again in ${seconds} seconds.`);
  }
  return new AppError(502, 'CRM_UNAVAILABLE', `GoHighLevel failed (${message}). Please try again in a moment.`);
}
