import { describe, expect, it } from 'vitest';
import { graphError, httpError, networkError, scrub, secretsOf, twilioError } from './errors.ts';

const call = (url = 'https://graph.facebook.com/v27.0/me/messages') => ({ method: 'POST', url, secrets: secretsOf('EAAsecret-token') });

describe('send error classification', () => {
  it.each([
    [1, 500, true],
    [2, 500, true],
    [4, 400, true],
    [17, 400, true],
    [32, 400, true],
    [613, 400, true],
    [190, 400, false],
    [10, 400, false],
    [551, 400, false],
    [100, 400, false],
    [200, 403, false],
    [131047, 400, false],
  ])('Meta code %i (HTTP %i) is transient: %s', (code, status, transient) => {
    expect(graphError(call(), status, JSON.stringify({ error: { message: 'x', type: 'OAuthException', code } })).transient).toBe(transient);
  });

  it('falls back to the HTTP status when the body has no Graph error', () => {
    expect(graphError(call(), 502, '<html>Bad gateway</html>').transient).toBe(true);
    expect(graphError(call(), 429, '').transient).toBe(true);
    expect(graphError(call(), 404, '').transient).toBe(false);
    expect(graphError(call(), 400, '{}').record.code).toBe('HTTP_400');
  });

  it('keeps Meta code/subcode, type and fbtrace_id in the record', () => {
    const error = graphError(call(), 400, JSON.stringify({ error: { message: 'Outside window', type: 'OAuthException', code: 10, error_subcode: 2018278, fbtrace_id: 'Abc' } }));
    expect(error.record).toEqual({
      message: 'Outside window',
      type: 'OAuthException',
      code: '10/2018278',
      status: 400,
      method: 'POST',
      url: 'https://graph.facebook.com/v27.0/me/messages',
      response: expect.stringContaining('2018278'),
      details: 'fbtrace_id Abc',
    });
    expect(error.transient).toBe(false);
  });

  it('classifies Twilio codes and gateway statuses', () => {
    expect(twilioError(call(), { status: 429, code: 20429 }).transient).toBe(true);
    expect(twilioError(call(), { status: 400, code: 21211 }).transient).toBe(false);
    expect(twilioError(call(), { status: 400, code: 21610 }).transient).toBe(false);
    expect(twilioError(call(), { status: 503, code: 20500 }).transient).toBe(true);
    expect(httpError(call(), 400, '{"message":"bad"}', 'sms-gateway').transient).toBe(false);
    expect(httpError(call(), 401, '', 'sms-gateway').transient).toBe(false);
    expect(httpError(call(), 503, '', 'sms-gateway').transient).toBe(true);
    expect(networkError(call(), new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })).record).toMatchObject({ type: 'network', code: 'ECONNREFUSED' });
    expect(networkError(call(), Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' })).record.type).toBe('timeout');
  });
});

describe('scrub', () => {
  it('removes the account secrets, token query parameters and Authorization values', () => {
    const gateway = secretsOf('user:pa55word-long');
    const basic = Buffer.from('user:pa55word-long').toString('base64');
    expect(scrub(`token EAAsecret-token in text`, ['EAAsecret-token'])).toBe('token [redacted] in text');
    expect(scrub('https://graph.facebook.com/v27.0/1/messages?after=QQ&access_token=EAAother&limit=2', [])).toBe(
      'https://graph.facebook.com/v27.0/1/messages?after=QQ&access_token=[redacted]&limit=2',
    );
    expect(scrub(`Authorization: Basic ${basic} / password pa55word-long`, gateway)).not.toMatch(/pa55word|cGE1NXdvcmQ/);
    expect(scrub('Bearer abc.def-ghi', [])).toBe('Bearer [redacted]');
    expect(scrub('x'.repeat(5000), []).length).toBe(2000);
  });
});
