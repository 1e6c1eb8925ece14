export const E2E_ADMIN = { email: 'admin@example.com', password: 'admin-password' };
/** The Twilio account the loopback Twilio fake knows (E2E_FAKE_TWILIO; make-call spec). */
export const E2E_TWILIO = { accountSid: `AC${'e2e0'.repeat(8)}`, authToken: 'e2e-twilio-auth-token', number: '+15550001234' };
