import { Component, lazy, Suspense, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { BrowserRouter, matchRoutes, useLocation, useRoutes, type RouteObject } from 'react-router';
import { Box, Text, Title } from '@mantine/core';
import { AppLoading, Layout } from './layout.tsx';
import { RequireRole } from './guards.tsx';

/*
 * Declarative routes (<BrowserRouter> + useRoutes) rather than react-router's data router: the app uses no
 * loaders, actions or fetchers, and the data router's code was 15 KB (brotli) of the main chunk that every
 * first screen downloads before anything runs (issue 12, item 7; docs/performance.md). What it did for us is
 * kept here: pages load lazily, a navigation keeps the current page until the next one has loaded (the router
 * updates its location in a React transition), and a render error shows 'Unexpected Application Error!'.
 */

type PageModule = {
  default: ComponentType;
  /**
   * The data the page's first render shows, fetched into the query cache before the first render when the page
   * is the one the browser opened (main.tsx): the page then draws its content in the same commit that replaces
   * the static shell, instead of a loader first (the inbox's list; docs/performance.md, "Lighthouse").
   */
  prefetch?: (search: string) => Promise<unknown>;
};
/** What a route needs loaded before it can render; main.tsx loads it ahead of the first render. */
interface RouteHandle {
  load(): Promise<PageModule>;
}

/** A lazily loaded page: the element to route to, and its loader (started once, shared with React.lazy). */
function lazyPage(load: () => Promise<PageModule>): Pick<RouteObject, 'element' | 'handle'> {
  let loading: Promise<PageModule> | undefined;
  const loadOnce = () => (loading ??= load());
  const Page = lazy(loadOnce);
  return { element: <Page />, handle: { load: loadOnce } satisfies RouteHandle };
}

/**
 * Each page is its own lazily loaded chunk, loaded together with Mantine's full stylesheet (all-styles.ts).
 * The stylesheet is requested first so that its <link> comes before the page chunk's own CSS (a page's
 * styles may override Mantine's at equal specificity).
 */
const loadAllStyles = () => import('./all-styles.ts');
const page = (load: () => Promise<PageModule>) =>
  lazyPage(async () => {
    const [, module] = await Promise.all([loadAllStyles(), load()]);
    return module;
  });
/**
 * The start page and the login page need only the first screens' styles (first-screen-styles.ts, loaded by
 * main.tsx): opened directly, they do not wait for the rest.
 */
const startPage = lazyPage(() => import('../features/conversations/pages/conversation-new-page.tsx'));
const loginPage = lazyPage(() => import('../features/auth/pages/login-page.tsx'));

/** Every route of spec §2.2 with the guards of spec §6. */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: <Layout />,
    children: [
      // Open pages
      { index: true, ...startPage },
      { path: 'conversation/new', ...startPage },
      { path: 'conversation/:uuid', ...page(() => import('../features/conversations/pages/conversation-detail-page.tsx')) },
      { path: 'login', ...loginPage },
      { path: 'register', ...page(() => import('../features/auth/pages/register-page.tsx')) },
      { path: 'set-password', ...page(() => import('../features/auth/pages/set-password-page.tsx')) },
      { path: 'forgot-password', ...page(() => import('../features/auth/pages/forgot-password-page.tsx')) },
      { path: 'user/connect-meta-page', ...page(() => import('../features/meta/pages/connect-meta-page.tsx')) },
      { path: 'user/meta-login-register-redirect', ...page(() => import('../features/meta/pages/meta-login-redirect-page.tsx')) },
      { path: 'user/meta-invite', ...page(() => import('../features/meta/pages/meta-invite-page.tsx')) },
      { path: 'user/onboarding', ...page(() => import('../features/auth/pages/onboarding-page.tsx')) },
      { path: 'user/ig-redirect', ...page(() => import('../features/meta/pages/ig-redirect-page.tsx')) },
      // Signed-in pages (NORMAL or ADMIN)
      {
        element: <RequireRole role="NORMAL" />,
        children: [
          { path: 'conversation/list', ...page(() => import('../features/conversations/pages/conversation-list-page.tsx')) },
          { path: 'call-recordings/upload', ...page(() => import('../features/call-recordings/pages/upload-page.tsx')) },
          { path: 'analytics', ...page(() => import('../features/analytics/pages/analytics-page.tsx')) },
          { path: 'call-recordings/statistics', ...page(() => import('../features/call-recordings/pages/statistics-page.tsx')) },
          { path: 'call-recordings/:id/transcript', ...page(() => import('../features/call-recordings/pages/transcript-page.tsx')) },
          { path: 'user/:email', ...page(() => import('../features/auth/pages/profile-page.tsx')) },
        ],
      },
      // ADMIN section
      {
        path: 'admin',
        element: <RequireRole role="ADMIN" />,
        children: [
          { path: 'hello', ...page(() => import('../features/admin/pages/admin-hello-page.tsx')) },
          { path: 'app-config', ...page(() => import('../features/admin/pages/app-config-page.tsx')) },
          { path: 'knowledge', ...page(() => import('../features/knowledge/pages/knowledge-list-page.tsx')) },
          { path: 'integrations', ...page(() => import('../features/integrations/pages/integrations-page.tsx')) },
          { path: 'knowledge/:id', ...page(() => import('../features/knowledge/pages/knowledge-collection-page.tsx')) },
          { path: 'conversation-type/create', ...page(() => import('../features/conversation-types/pages/conversation-type-edit-page.tsx')) },
          { path: 'conversation-type/list', ...page(() => import('../features/conversation-types/pages/conversation-type-list-page.tsx')) },
          { path: 'conversation-type/:id/edit', ...page(() => import('../features/conversation-types/pages/conversation-type-edit-page.tsx')) },
          { path: 'conversation-type/:id/config', ...page(() => import('../features/conversation-types/pages/conversation-type-config-page.tsx')) },
          { path: 'conversation-type/:id/contacts', ...page(() => import('../features/conversation-types/pages/conversation-type-contacts-page.tsx')) },
          { path: 'conversation-type/:id/tests', ...page(() => import('../features/agent-tests/pages/type-tests-page.tsx')) },
          { path: 'pricing/conversation', ...page(() => import('../features/pricing/pages/pricing-page.tsx')) },
          { path: 'call', ...page(() => import('../features/calls/pages/make-call-page.tsx')) },
          { path: 'messaging-accounts/list', ...page(() => import('../features/messaging-accounts/pages/messaging-account-list-page.tsx')) },
          { path: 'messaging-accounts/create', ...page(() => import('../features/messaging-accounts/pages/messaging-account-edit-page.tsx')) },
          { path: 'messaging-accounts/:id/edit', ...page(() => import('../features/messaging-accounts/pages/messaging-account-edit-page.tsx')) },
          { path: 'messaging-accounts/:id/config', ...page(() => import('../features/messaging-accounts/pages/messaging-account-config-page.tsx')) },
          { path: 'user-messaging-accounts/list', ...page(() => import('../features/permissions/pages/permission-list-page.tsx')) },
          { path: 'user-messaging-accounts/create', ...page(() => import('../features/permissions/pages/permission-create-page.tsx')) },
          { path: 'unanswered-conversations/list', ...page(() => import('../features/unanswered/pages/unanswered-list-page.tsx')) },
          { path: 'webhook-simulation-tool', ...page(() => import('../features/webhook-simulator/pages/webhook-simulator-page.tsx')) },
          { path: 'users', ...page(() => import('../features/team/pages/team-page.tsx')) },
          { path: 'opt-outs', ...page(() => import('../features/compliance/pages/opt-out-audit-page.tsx')) },
          { path: 'campaigns', ...page(() => import('../features/campaigns/pages/campaigns-page.tsx')) },
          { path: 'campaigns/:id', ...page(() => import('../features/campaigns/pages/campaign-page.tsx')) },
        ],
      },
      // Unknown routes: a not-found page inside the shell (render errors reach RouteErrorBoundary below).
      { path: '*', ...page(() => import('./not-found-page.tsx')) },
    ],
  },
  // The website widget's iframe (docs/widget.md): the chat without the shell.
  {
    path: '/embed/:typeId',
    ...page(async () => ({ default: (await import('./embed.tsx')).EmbedLayout })),
    children: [
      { index: true, ...lazyPage(async () => ({ default: (await import('./embed.tsx')).EmbedStartPage })) },
      { path: 'conversation/:uuid', ...page(() => import('../features/conversations/pages/conversation-detail-page.tsx')) },
    ],
  },
];

/**
 * Loads what the routes matching `pathname` render, and the data their pages prefetch for this query string, so
 * the first render neither suspends nor starts with a loader.
 */
export function loadRoute(pathname: string, search = ''): Promise<unknown> {
  const matches = matchRoutes(routes, pathname) ?? [];
  return Promise.all(
    matches.map(async (m) => {
      const module = await (m.route.handle as RouteHandle | undefined)?.load();
      // A slow answer does not hold the whole app back: past PREFETCH_WAIT_MS the page renders with its loader.
      if (module?.prefetch) await Promise.race([module.prefetch(search), new Promise((resolve) => setTimeout(resolve, PREFETCH_WAIT_MS))]);
    }),
  );
}

/** How long the first render waits for a page's prefetched data at most. */
export const PREFETCH_WAIT_MS = 3_000;

function AppRoutes() {
  return useRoutes(routes);
}

/**
 * Spec §8.3: a render error shows 'Unexpected Application Error!' (react-router's data router said so), until
 * the location changes, as the data router's error element did.
 */
export class RouteErrorBoundary extends Component<{ pathname: string; children: ReactNode }, { error: Error | null; at: string }> {
  state = { error: null as Error | null, at: this.props.pathname };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  static getDerivedStateFromProps(props: { pathname: string }, state: { error: Error | null; at: string }) {
    return props.pathname === state.at ? null : { error: null, at: props.pathname };
  }
  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }
  render() {
    if (!this.state.error) return this.props.children;
    return (
      <Box component="main" p="md">
        <Title order={1} fz="h2">
          Unexpected Application Error!
        </Title>
        <Text mt="sm">{this.state.error.message}</Text>
      </Box>
    );
  }
}

function RoutesWithErrorBoundary() {
  const { pathname } = useLocation();
  return (
    <RouteErrorBoundary pathname={pathname}>
      {/* Only the first page of a visit shows this: later navigations are transitions that keep the old page. */}
      <Suspense fallback={<AppLoading />}>
        <AppRoutes />
      </Suspense>
    </RouteErrorBoundary>
  );
}

/** Every route of spec §2.2 in the browser's history. */
export function AppRouter() {
  return (
    <BrowserRouter>
      <RoutesWithErrorBoundary />
    </BrowserRouter>
  );
}
