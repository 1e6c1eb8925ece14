import { describe, expect, it } from 'vitest';
import { parseErrors } from './error-list.tsx';

describe('parseErrors', () => {
  it('reads a JSON array of error objects, keeping every shown field', () => {
    const text = JSON.stringify([{ message: 'Token expired', type: 'OAuthException', code: 190, status: 400, method: 'POST', url: 'https://graph', response: { a: 1 }, details: 'x', extra: true }]);
    expect(parseErrors(text)).toEqual([
      { message: 'Token expired', type: 'OAuthException', code: 190, status: 400, method: 'POST', url: 'https://graph', response: { a: 1 }, details: 'x', extra: true },
    ]);
    expect(parseErrors('[]')).toEqual([]);
  });

  it('answers null (shown as "Invalid error format") for text that is not an array of objects', () => {
    for (const text of ['not json', '{"message":"x"}', '[1, 2]', '', 'null']) expect(parseErrors(text), text).toBeNull();
  });
});
