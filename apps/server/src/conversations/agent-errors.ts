/**
 * The error object stored in an unanswered conversation's `errors` JSON (spec §3: message, type, code,
 * status, method, url, response, details).
 */
export interface AgentErrorRecord {
  message: string;
  type: string;
  code: string | null;
  status: number | null;
  method: string | null;
  url: string | null;
  response: string | null;
  details: string | null;
  /** ISO time it happened (an addition; screens show the fields above). */
  at?: string;
}

/**
 * The one way to write an error record that has no HTTP request behind it (a turn, a channel, a call):
 * the request fields stay null, as the screens expect.
 */
export function agentError(type: string, code: string | null, message: string, details: string | null = null): AgentErrorRecord {
  return { message, type, code, status: null, method: null, url: null, response: null, details };
}
