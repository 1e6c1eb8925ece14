import { readFileSync } from 'node:fs';
import { ERROR_CODES, isErrorCode } from '@sales-agent/shared/error-codes';
import { describe, expect, it } from 'vitest';
import { badRequest, notFound } from './errors.ts';

// docs/api-errors.md is where a client reads what a code means; it must name exactly the list.
const doc = readFileSync(new URL('../../../../docs/api-errors.md', import.meta.url), 'utf8');
const documented = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);

describe('the error code list', () => {
  it('names each code once', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('is documented in docs/api-errors.md, code for code', () => {
    expect([...documented].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('narrows only its own codes', () => {
    expect(isErrorCode('CONVERSATION_NOT_FOUND')).toBe(true);
    expect(isErrorCode('FST_ERR_CTP_INVALID_JSON_BODY')).toBe(false);
    expect(isErrorCode(undefined)).toBe(false);
  });

  it('gives the helpers their generic codes by default', () => {
    expect(notFound('gone')).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'gone' });
    expect(badRequest('bad', 'INVALID_JSON')).toMatchObject({ status: 400, code: 'INVALID_JSON' });
  });
});
