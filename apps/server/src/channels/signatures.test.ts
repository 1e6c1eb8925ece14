import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyMetaSignature, verifySmsGatewaySignature, verifyTwilioSignature } from './signatures.ts';

describe('verifyTwilioSignature', () => {
  // Twilio's published example (docs: "Webhooks security").
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };

  it("accepts Twilio's published test vector", () => {
    expect(verifyTwilioSignature('12345', '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', url, params)).toBe(true);
  });

  it('refuses a wrong token, a changed parameter, a changed URL and a missing header', () => {
    expect(verifyTwilioSignature('54321', '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', url, params)).toBe(false);
    expect(verifyTwilioSignature('12345', '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', url, { ...params, Digits: '1235' })).toBe(false);
    expect(verifyTwilioSignature('12345', '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', 'https://mycompany.com/other.php?foo=1&bar=2', params)).toBe(false);
    expect(verifyTwilioSignature('12345', undefined, url, params)).toBe(false);
  });
});

describe('verifyMetaSignature', () => {
  // Meta signs its own escaped JSON; the check must run over those bytes, not a re-serialised object.
  const body = Buffer.from('{"object":"page","entry":[{"text":"caf\\u00e9 \\/ ok"}]}');
  const sign = (secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

  it('accepts the HMAC of the raw bytes under any configured secret', () => {
    expect(verifyMetaSignature(body, sign('app-secret'), ['app-secret', undefined])).toBe(true);
    expect(verifyMetaSignature(body, sign('ig-secret'), ['app-secret', 'ig-secret'])).toBe(true);
  });

  it('refuses another secret, re-serialised bytes, a malformed header and no secret at all', () => {
    expect(verifyMetaSignature(body, sign('other'), ['app-secret'])).toBe(false);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
    expect(verifyMetaSignature(reserialised, sign('app-secret'), ['app-secret'])).toBe(false);
    expect(verifyMetaSignature(body, sign('app-secret').replace('sha256=', 'sha1='), ['app-secret'])).toBe(false);
    expect(verifyMetaSignature(body, sign('app-secret'), [undefined])).toBe(false);
  });
});

describe('verifySmsGatewaySignature', () => {
  const body = Buffer.from('{"deviceId":"dev1","event":"sms:received"}');
  const now = 1_800_000_000_000;
  const timestamp = String(now / 1000);
  const signature = createHmac('sha256', 'key').update(Buffer.concat([body, Buffer.from(timestamp)])).digest('hex');

  it('accepts hex HMAC-SHA256 of body + timestamp', () => {
    expect(verifySmsGatewaySignature(body, timestamp, signature, 'key', now)).toBe('ok');
    expect(verifySmsGatewaySignature(body, timestamp, signature.toUpperCase(), 'key', now)).toBe('ok');
  });

  it('refuses a wrong key or timestamp, and a correctly signed request older than 5 minutes', () => {
    expect(verifySmsGatewaySignature(body, timestamp, signature, 'other', now)).toBe('bad-signature');
    expect(verifySmsGatewaySignature(body, String(Number(timestamp) + 1), signature, 'key', now)).toBe('bad-signature');
    expect(verifySmsGatewaySignature(body, undefined, signature, 'key', now)).toBe('bad-signature');
    expect(verifySmsGatewaySignature(body, timestamp, signature, 'key', now + 5 * 60_000 + 1_000)).toBe('stale');
  });
});
