import { beforeEach } from 'vitest';
import { CHANNEL_ENV } from './channel-factories.ts';
import { startMetaGraphFake } from './fakes/meta-graph-fake.ts';
import { startSmsGatewayFake } from './fakes/sms-gateway-fake.ts';
import { startTwilioFake } from './fakes/twilio-fake.ts';
import { useFake, useTestApp } from './use-test-app.ts';

// The credentials the channel fakes of useChannelApp accept (token-shaped, so redaction tests see real shapes).
export const IG_TOKEN = 'EAAig-page-token-0123456789';
export const IG_LOGIN_TOKEN = 'IGQig-login-token-0123456789';
export const FB_TOKEN = 'EAAfb-page-token-0123456789';
export const WA_TOKEN = 'EAAwa-system-user-token-0123456789';
export const TWILIO_SID = 'AC00000000000000000000000000000001';
export const TWILIO_TOKEN = 'twilio-auth-token-0123456789';
export const GATEWAY_LOGIN = 'gwuser';
export const GATEWAY_PASSWORD = 'gw-password-0123456789';

let sequence = 0;
/** The next number of this test file's sequence: page ids, event ids and phone digits never repeat in its database. */
export const nextNumber = () => (sequence += 1);
/** A fresh id, `prefix-N`, for a page id, message id or sender. */
export const unique = (prefix: string) => `${prefix}-${nextNumber()}`;

/**
 * A test app whose channels all talk to loopback fakes, for a describe block: the Meta Graph fake (Facebook
 * login page tokens: Instagram, Messenger, WhatsApp), the Instagram-login Graph fake, Twilio and the SMS gateway,
 * each accepting the credentials above, and emptied before every test. Register users and playbooks after it.
 */
export function useChannelApp() {
  const graph = useFake(() => startMetaGraphFake({ tokens: [IG_TOKEN, FB_TOKEN, WA_TOKEN] }));
  const igGraph = useFake(() => startMetaGraphFake({ tokens: [IG_LOGIN_TOKEN] }));
  const twilio = useFake(() => startTwilioFake({ accounts: { [TWILIO_SID]: TWILIO_TOKEN } }));
  const gateway = useFake(() => startSmsGatewayFake({ login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD }));
  const t = useTestApp({
    env: () => ({ ...CHANNEL_ENV, META_GRAPH_URL: graph.url, INSTAGRAM_GRAPH_URL: igGraph.url, TWILIO_API_URL: twilio.url }),
  });
  beforeEach(() => {
    graph.reset();
    igGraph.reset();
    twilio.requests.length = 0;
    twilio.messages.length = 0;
    twilio.calls.length = 0;
    gateway.requests.length = 0;
    gateway.messages.length = 0;
  });
  return { t, graph, igGraph, twilio, gateway };
}
