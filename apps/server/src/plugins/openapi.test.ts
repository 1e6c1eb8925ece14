import { createConfig, lintFromString } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/use-test-app.ts';

interface Operation {
  summary?: string;
  operationId?: string;
  security?: Record<string, string[]>[];
}
interface Document {
  servers: { url: string }[];
  security: Record<string, string[]>[];
  components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
  paths: Record<string, Record<string, Operation>>;
}

let body: string;
let doc: Document;
const t = useTestApp({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
beforeAll(async () => {
  const res = await t.request({ method: 'GET', url: '/api/docs/json' });
  body = res.body;
  doc = res.json();
});

describe('the OpenAPI document (/api/docs/json)', () => {
  it("passes Redocly's recommended rules with no errors", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: body, absoluteRef: 'openapi.json', config });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    // A new route without a summary gets one made from its path; a public one must be listed in plugins/openapi.ts.
    expect(errors).toEqual([]);
  });

  it('declares the session cookie as the security scheme and the instance as the server', () => {
    expect(doc.components.securitySchemes.sessionCookie).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sa_session' }));
    expect(doc.security).toEqual([{ sessionCookie: [] }]);
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://localhost:3000' })]);
  });

  it('marks public and optional operations, and gives every operation a summary and a unique id', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
    const byKey = new Map(ops.map(({ key, op }) => [key, op]));
    expect(byKey.get('POST /api/user/login')?.security).toEqual([]);
    expect(byKey.get('POST /api/meta-api/webhook')?.security).toEqual([]);
    expect(byKey.get('GET /api/conversation/{uuidOrId}')?.security).toEqual([{}, { sessionCookie: [] }, { apiKey: [] }]);
    // Operations open to API keys name both ways in (issue 27); the others keep the document's default.
    expect(byKey.get('GET /api/conversation/list')?.security).toEqual([{ sessionCookie: [] }, { apiKey: [] }]);
    expect(byKey.get('GET /api/admin/messaging-accounts/list')?.security).toBeUndefined();
    expect(byKey.get('GET /api/conversation/list')?.summary).toBe('List conversations');
    for (const { key, op } of ops) expect(op.summary, key).toBeTruthy();
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // The metrics endpoint is for Prometheus, not for integrators.
    expect(doc.paths['/api/metrics']).toBeUndefined();
  });

  it('answers 401 to an anonymous call of every operation it says needs the session, unless the input is refused first', async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        // Public or optional (an empty requirement): anyone may call it.
        if (op.security !== undefined && (op.security.length === 0 || op.security.some((s) => Object.keys(s).length === 0))) continue;
        const url = path.replace(/\{[^}]+\}/g, '1');
        const res = await t.request({ method: method.toUpperCase() as never, url, ...(method === 'get' ? {} : { payload: {} }) });
        // Body validation runs before the handler's session check, so a 400 is also an honest answer.
        expect([400, 401], `${method.toUpperCase()} ${path}: ${res.statusCode}`).toContain(res.statusCode);
      }
    }
  });
});
