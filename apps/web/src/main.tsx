import './app/first-screen-styles.ts';
import { createRoot } from 'react-dom/client';
import { startTransition, StrictMode } from 'react';
import { AppProviders } from './app/providers.tsx';
import { router } from './app/router.tsx';

/** Resolves once the router has loaded the current page's lazy chunk (or failed to). */
function whenPageLoaded(): Promise<void> {
  return new Promise((resolve) => {
    if (router.state.initialized) return resolve();
    const unsubscribe = router.subscribe((state) => {
      if (!state.initialized) return;
      unsubscribe();
      resolve();
    });
  });
}

const container = document.getElementById('root')!;
// A first screen's document (vite-plugins/first-screens.ts) comes with a static shell inside #root: keep it
// until the page itself can replace it in one commit, instead of replacing it with the router's loading
// spinner in between. Other documents have an empty #root and show the spinner at once.
const ready = container.firstElementChild ? whenPageLoaded() : Promise.resolve();
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
