import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Importing this file registers the clean-up every fetch-stubbing component test needs: unmount, and remove the
// stubbed globals (fetch) so the next test starts from nothing.
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A JSON answer for a stubbed fetch. */
export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
