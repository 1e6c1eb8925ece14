import { agentError, type AgentErrorRecord } from '../../conversations/agent-errors.ts';
import { redactText } from '../../lib/redact.ts';
import { ChannelSendError } from '../types.ts';

/** How long one provider call may take before it counts as a (transient) timeout. */
export const SEND_TIMEOUT_MS = 15_000;

/** Meta Graph codes that mean "try again later" (third-party-facts.md), plus WhatsApp's own rate limits. */
const META_TRANSIENT = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131056]);
/** Meta codes that never succeed on a retry: token (190), permission/window (10, 200), user unavailable (551), bad parameter (100), WhatsApp re-engagement (131047). */
const META_PERMANENT = new Set([10, 100, 190, 200, 551, 131047]);
const TWILIO_TRANSIENT = new Set([20429]);

const MAX_TEXT = 2_000;

/**
 * Removes every credential from a text shown to users or logged: the given secrets (tokens, passwords and
 * their Basic-auth encodings), `access_token=` style query parameters (Meta puts tokens in query strings,
 * including in `paging.next` URLs) and Authorization header values.
 */
export function scrub(text: string, secrets: (string | null | undefined)[]): string {
  return redactText(text, secrets).slice(0, MAX_TEXT);
}

/** The secrets of an account as they may appear on the wire (raw, and Basic-auth encoded when login:password). */
export function secretsOf(token: string, extra: string[] = []): string[] {
  const list = [token, ...extra];
  if (token.includes(':')) {
    list.push(Buffer.from(token).toString('base64'), token.slice(token.indexOf(':') + 1));
  }
  return list;
}

interface Call {
  method: string;
  url: string;
  secrets: string[];
}

/** A failure before any answer: connection refused/reset, DNS, or our timeout. Always transient. */
export function networkError(call: Call, err: unknown): ChannelSendError {
  const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError' || /timeout/i.test(err.message));
  const cause = err instanceof Error ? ((err.cause as { code?: string } | undefined)?.code ?? (err as { code?: string }).code ?? null) : null;
  const message = timeout
    ? `The provider did not answer within ${SEND_TIMEOUT_MS / 1000} s.`
    : `The provider could not be reached${cause ? ` (${cause})` : ''}.`;
  return new ChannelSendError(
    record(call, {
      message,
      type: timeout ? 'timeout' : 'network',
      code: timeout ? 'TIMEOUT' : (cause ?? 'NETWORK'),
      status: null,
      response: null,
      details: err instanceof Error ? scrub(err.message, call.secrets) : null,
    }),
    true,
  );
}

/** A Graph API error answer `{"error":{message,type,code,error_subcode,fbtrace_id}}` (or any non-JSON body). */
export function graphError(call: Call, status: number, body: string): ChannelSendError {
  let error: { message?: string; type?: string; code?: number; error_subcode?: number; fbtrace_id?: string; error_data?: unknown } = {};
  try {
    const parsed = JSON.parse(body) as { error?: typeof error };
    if (parsed && typeof parsed.error === 'object' && parsed.error) error = parsed.error;
  } catch {
    // A proxy's HTML page or an empty body: classified by the status alone.
  }
  const code = typeof error.code === 'number' ? error.code : null;
  let transient: boolean;
  if (code !== null && META_PERMANENT.has(code)) transient = false;
  else if (code !== null && META_TRANSIENT.has(code)) transient = true;
  else transient = status >= 500 || status === 429;
  const subcode = typeof error.error_subcode === 'number' ? error.error_subcode : null;
  return new ChannelSendError(
    record(call, {
      message: scrub(error.message ?? `The Graph API answered HTTP ${status}.`, call.secrets),
      type: error.type ?? 'http',
      code: code === null ? `HTTP_${status}` : subcode ? `${code}/${subcode}` : String(code),
      status,
      response: scrub(body, call.secrets),
      details: error.fbtrace_id ? `fbtrace_id ${error.fbtrace_id}` : null,
    }),
    transient,
  );
}

/** A Twilio REST error `{code, message, more_info, status}` as the SDK's RestException carries it. */
export function twilioError(call: Call, err: { status?: number; code?: number; message?: string; moreInfo?: string; details?: unknown }): ChannelSendError {
  const status = typeof err.status === 'number' ? err.status : 500;
  const code = typeof err.code === 'number' ? err.code : null;
  const transient = (code !== null && TWILIO_TRANSIENT.has(code)) || status >= 500 || status === 429;
  const response = JSON.stringify({ code, message: err.message, more_info: err.moreInfo, status });
  return new ChannelSendError(
    record(call, {
      message: scrub(err.message ?? `Twilio answered HTTP ${status}.`, call.secrets),
      type: 'twilio',
      code: code === null ? `HTTP_${status}` : String(code),
      status,
      response: scrub(response, call.secrets),
      details: err.moreInfo ?? null,
    }),
    transient,
  );
}

/** An HTTP error of a plain JSON API (the SMS gateway): 4xx permanent except 408/429, 5xx transient. */
export function httpError(call: Call, status: number, body: string, type: string): ChannelSendError {
  let message = `The provider answered HTTP ${status}.`;
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    const text = typeof parsed.message === 'string' ? parsed.message : typeof parsed.error === 'string' ? parsed.error : null;
    if (text) message = `${message.slice(0, -1)}: ${text}`;
  } catch {
    // Not JSON: the status says enough.
  }
  const transient = status >= 500 || status === 429 || status === 408;
  return new ChannelSendError(
    record(call, { message: scrub(message, call.secrets), type, code: `HTTP_${status}`, status, response: scrub(body, call.secrets), details: null }),
    transient,
  );
}

/** A permanent failure found before calling the provider (a missing setting). */
export function configError(message: string, code: string): ChannelSendError {
  return new ChannelSendError(agentError('configuration', code, message), false);
}

function record(call: Call, fields: Omit<AgentErrorRecord, 'method' | 'url'>): AgentErrorRecord {
  return { ...fields, method: call.method, url: scrub(call.url, call.secrets) };
}
