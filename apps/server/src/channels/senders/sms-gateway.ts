import type { MessageState } from 'android-sms-gateway';
import { outboundUrlProblem } from '../../lib/outbound-url.ts';
import { configError, httpError, networkError, secretsOf, SEND_TIMEOUT_MS } from './errors.ts';
import type { ChannelSender } from '../types.ts';

/** The gateway's cloud server; a private server's `baseUrl` goes in the account config. */
const DEFAULT_BASE_URL = 'https://api.sms-gate.app/3rdparty/v1';

/** An HTTP error answer, carried through the client to the sender so it can classify it. */
class GatewayHttpError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
  }
}

async function request<T>(method: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { accept: 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new GatewayHttpError(method, url, res.status, text);
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * SMS Gateway for Android: `POST {baseUrl}/messages` with Basic login:password (the account's accessToken) and
 * `{textMessage:{text}, phoneNumbers:[to]}` → 202 `{id, state}` (the gateway server's 3rd-party API; the
 * older `POST {baseUrl}/message` route with `{message, phoneNumbers}` is deprecated and marked for removal).
 * The `android-sms-gateway` npm client 3.0.0 still calls `/message`, so the send is this one request of ours
 * (docs/architecture.md "SMS gateway client"); the client's types describe the answer. baseUrl comes from the
 * account config (default: the gateway's cloud server).
 */
export const smsGatewaySender: ChannelSender = {
  limit: { unit: 'chars', max: 1600 },
  async send(endpoints, account, part) {
    const separator = account.accessToken.indexOf(':');
    if (separator <= 0) {
      throw configError('The SMS gateway account needs its access token as login:password.', 'SMS_GATEWAY_CREDENTIALS_INVALID');
    }
    const baseUrl = (typeof account.config.baseUrl === 'string' && account.config.baseUrl.trim() ? account.config.baseUrl.trim() : DEFAULT_BASE_URL).replace(/\/+$/, '');
    // Checked again before each call (the name may point elsewhere since it was saved): issue 29.
    const problem = await outboundUrlProblem(baseUrl, { allowPrivate: endpoints.ALLOW_PRIVATE_URLS === true });
    if (problem) throw configError(`The SMS gateway URL cannot be called: ${problem}`, 'PRIVATE_URL');
    const url = `${baseUrl}/messages`;
    const call = { method: 'POST', url, secrets: secretsOf(account.accessToken) };
    const authorization = `Basic ${Buffer.from(account.accessToken).toString('base64')}`;
    try {
      const state = await request<Partial<MessageState>>('POST', url, { textMessage: { text: part.text }, phoneNumbers: [part.recipientId] }, {
        authorization,
        'content-type': 'application/json',
      });
      if (!state?.id) throw configError('The SMS gateway accepted the message but answered no id.', 'NO_MESSAGE_ID');
      return { externalId: state.id };
    } catch (err) {
      if (err instanceof GatewayHttpError) throw httpError({ ...call, method: err.method, url: err.url }, err.status, err.body, 'sms-gateway');
      if (err instanceof Error && err.name === 'ChannelSendError') throw err;
      throw networkError(call, err);
    }
  },
};
