/**
 * Starts the product for the browser tests exactly as `npm start` does (same main module), on a fresh
 * PGlite data directory, with loopback fakes of third-party services where a flow needs one.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { E2E_ADMIN, E2E_TWILIO } from './constants.ts';

const port = process.env.E2E_PORT ?? '3100';
const dataDir = path.resolve(`.tmp/e2e-data-${port}`);
rmSync(dataDir, { recursive: true, force: true });

Object.assign(process.env, {
  NODE_ENV: 'test',
  PORT: port,
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  PUBLIC_URL: `http://localhost:${port}`,
  ADMIN_EMAIL: E2E_ADMIN.email,
  ADMIN_PASSWORD: E2E_ADMIN.password,
  AUTH_RATE_LIMIT: '10000',
  CHAT_RATE_LIMIT: '10000',
  LOG_LEVEL: 'warn',
  // Accounts of the specs point at loopback fakes (an SMS gateway's baseUrl).
  ALLOW_PRIVATE_URLS: 'true',
  // The specs run on the real clock, which may be at night in DEFAULT_TIME_ZONE: Make a Call must not depend on it.
  QUIET_HOURS_ENFORCED: 'false',
});

// E2E_FAKE_OPENAI=1: a second server whose speech-to-text goes to a loopback fake (call-recordings spec).
if (process.env.E2E_FAKE_OPENAI === '1') {
  const { startOpenAiTranscriptionFake } = await import('../../apps/server/src/test/fakes/openai-transcription-fake.ts');
  const fake = await startOpenAiTranscriptionFake();
  Object.assign(process.env, { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseUrl });
}

// E2E_FAKE_META_OAUTH=1: Facebook login and account connect go to a loopback Meta OAuth fake (dialogs
// included), so the browser completes real round trips (meta-connect spec).
if (process.env.E2E_FAKE_META_OAUTH === '1') {
  const { startMetaOAuthFake } = await import('../../apps/server/src/test/fakes/meta-oauth-fake.ts');
  const fake = await startMetaOAuthFake();
  Object.assign(process.env, fake.env());
}

// E2E_FAKE_GHL=1: bare "GHL" conversation types talk to a loopback GoHighLevel fake with seeded pipelines and
// contacts (GHL_API_URL, GHL_API_KEY, GHL_LOCATION_ID; contacts spec).
if (process.env.E2E_FAKE_GHL === '1') {
  const { startGhlFake } = await import('../../apps/server/src/test/fakes/ghl-fake.ts');
  const fake = await startGhlFake();
  Object.assign(process.env, fake.env());
}

// E2E_FAKE_TWILIO=1: Twilio's REST API (calls, SMS, recordings) is a loopback fake that knows the E2E_TWILIO
// account, so Make a Call places a real request (make-call spec).
if (process.env.E2E_FAKE_TWILIO === '1') {
  const { startTwilioFake } = await import('../../apps/server/src/test/fakes/twilio-fake.ts');
  const fake = await startTwilioFake({ accounts: { [E2E_TWILIO.accountSid]: E2E_TWILIO.authToken } });
  Object.assign(process.env, { TWILIO_API_URL: fake.url });
}

// E2E_SMTP_PORT: "forgot password" emails go to a loopback SMTP server the spec itself runs on that port
// (e2e/account-recovery.spec.ts reads the link out of the mail); nothing listens there until it does.
if (process.env.E2E_SMTP_PORT) {
  Object.assign(process.env, { SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`, MAIL_FROM: 'Sales Agent <accounts@example.com>' });
}

await import('../../apps/server/src/main.ts');
