// The session check goes out first. The first screens' documents also load this module on its own, async,
// before this chunk has arrived; a module runs once per page, so whichever comes first sends the one request.
import './session-check.ts';
import './app/first-screen-styles.ts';
import { createRoot } from 'react-dom/client';
import { startTransition, StrictMode } from 'react';
import { loadDesktopHeader, WIDE_HEADER_QUERY } from './app/layout.tsx';
import { AppProviders } from './app/providers.tsx';
import { loadRoute } from './app/router.tsx';
import { sessionQuery } from './lib/auth.ts';
import { queryClient } from './lib/query-client.ts';

// The session query takes the early check's answer (spec §3: at app start) now, beside the first page's chunk,
// instead of when the header or a route guard first renders: the inbox waits for it before its first render.
void queryClient.prefetchQuery(sessionQuery);

const container = document.getElementById('root')!;
// A first screen's document (vite-plugins/first-screens.ts) comes with a static shell inside #root: keep it
// until the page itself, with the data it shows first, can replace it in one commit, instead of replacing it
// with the loading spinner in between. Other documents have an empty #root and show the spinner at once. A page
// that fails to load renders anyway (and shows the error).
// On a wide window the header's own chunk (its menus) is loaded with the page.
const ready = container.firstElementChild
  ? Promise.all([
      loadRoute(window.location.pathname, window.location.search),
      window.matchMedia(WIDE_HEADER_QUERY).matches ? loadDesktopHeader() : undefined,
    ]).catch(() => undefined)
  : Promise.resolve();
// As a transition, React renders the app in slices that yield to the browser between them, instead of one long
// task that would hold input (and Lighthouse's total blocking time) until the whole tree is built.
void ready.then(() =>
  startTransition(() =>
    createRoot(container).render(
      <StrictMode>
        <AppProviders />
      </StrictMode>,
    ),
  ),
);
