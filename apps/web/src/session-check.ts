/**
 * The first screens' early session check (vite-plugins/first-screens.ts loads this script, async, from the
 * document's head): POST /api/user/get-session (spec §3: at app start) goes out while the app's code is still
 * downloading, instead of after the main chunk has arrived and run; a POST cannot be preloaded with a <link>.
 * main.tsx imports it too (one module, evaluated once per page: one request, whichever loads it first); lib/auth.ts
 * takes its answer for the first session check. Nothing is imported: this file is its own chunk.
 */
declare global {
  interface Window {
    /** The early session check's response, until lib/auth.ts takes it. */
    salesAgentSessionCheck?: Promise<Response>;
  }
}

window.salesAgentSessionCheck = fetch('/api/user/get-session', { method: 'POST', credentials: 'same-origin' });

export {};
