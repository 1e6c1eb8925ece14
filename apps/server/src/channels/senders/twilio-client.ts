import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';

/**
 * The official Twilio SDK, pointed at TWILIO_API_URL (tests: the loopback fake). The SDK builds absolute
 * `https://api.twilio.com/...` URLs per domain; its documented extension point is the `httpClient` option,
 * so this request client swaps the origin (and keeps the path) just before each request. Pointed at the real
 * host it changes nothing. Shared by the SMS sender and any other Twilio user (calls).
 */
export function twilioClient(apiUrl: string, accountSid: string, authToken: string, timeoutMs = 15_000) {
  const base = new URL(apiUrl);
  class RebasedRequestClient extends twilio.RequestClient {
    override request<TData>(opts: RequestClient.RequestOptions<TData>) {
      const target = new URL(opts.uri);
      target.protocol = base.protocol;
      target.host = base.host;
      // A base with a path prefix (a proxy) keeps it in front of Twilio's own path.
      const prefix = base.pathname.replace(/\/$/, '');
      if (prefix) target.pathname = prefix + target.pathname;
      return super.request<TData>({ ...opts, uri: target.toString() });
    }
  }
  // The outbox does its own retries with backoff; the SDK's 429 auto-retry stays off so attempts are counted once.
  return twilio(accountSid, authToken, { httpClient: new RebasedRequestClient({ timeout: timeoutMs, autoRetry: false }) });
}
