import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

// Requests the conversation tests make again and again, with the status they must answer checked on the way
// (in its own file: the factories are also imported by the benchmarks, which run outside vitest).

/** GET /api/conversation/:uuid as `as` (a session cookie), which must answer 200: the detail's JSON. */
export async function readConversationDetail(t: TestApp, uuid: string, as: string) {
  const res = await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
