import { createBrowserRouter, type RouteObject } from 'react-router';
import { AppLoading, Layout } from './layout.tsx';
import { RequireRole } from './guards.tsx';

type PageModule = { default: React.ComponentType };
/**
 * Each page is its own lazily loaded chunk, loaded together with Mantine's full stylesheet (all-styles.ts).
 * The stylesheet is requested first so that its <link> comes before the page chunk's own CSS (a page's
 * styles may override Mantine's at equal specificity).
 */
const loadAllStyles = () => import('./all-styles.ts');
const page = (load: () => Promise<PageModule>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => {
    const [, module] = await Promise.all([loadAllStyles(), load()]);
    return { Component: module.default };
  },
});
/** The start page needs only the first screen's styles (first-screen-styles.ts, loaded by main.tsx). */
const startPage: Pick<RouteObject, 'lazy'> = {
  lazy: async () => ({ Component: (await import('../features/conversations/pages/conversation-new-page.tsx')).default }),
};

/** Every route of spec §2.2 with the guards of spec §6. */
export const routes: RouteObject[] = [
  {
    path: '/',
    Component: Layout,
    HydrateFallback: AppLoading,
    children: [
      // Open pages
      { index: true, ...startPage },
      { path: 'conversation/new', ...startPage },
      { path: 'conversation/:uuid', ...page(() => import('../features/conversations/pages/conversation-detail-page.tsx')) },
      { path: 'login', ...page(() => import('../features/auth/pages/login-page.tsx')) },
      { path: 'register', ...page(() => import('../features/auth/pages/register-page.tsx')) },
      { path: 'set-password', ...page(() => import('../features/auth/pages/set-password-page.tsx')) },
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
          { path: 'conversation-type/create', ...page(() => import('../features/conversation-types/pages/conversation-type-edit-page.tsx')) },
          { path: 'conversation-type/list', ...page(() => import('../features/conversation-types/pages/conversation-type-list-page.tsx')) },
          { path: 'conversation-type/:id/edit', ...page(() => import('../features/conversation-types/pages/conversation-type-edit-page.tsx')) },
          { path: 'conversation-type/:id/config', ...page(() => import('../features/conversation-types/pages/conversation-type-config-page.tsx')) },
          { path: 'conversation-type/:id/contacts', ...page(() => import('../features/conversation-types/pages/conversation-type-contacts-page.tsx')) },
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
        ],
      },
      // Unknown routes: a not-found page inside the shell (render errors keep the router's error element).
      { path: '*', ...page(() => import('./not-found-page.tsx')) },
    ],
  },
  // The website widget's iframe (docs/widget.md): the chat without the shell.
  {
    path: '/embed/:typeId',
    lazy: async () => {
      const [, embed] = await Promise.all([loadAllStyles(), import('./embed.tsx')]);
      return { Component: embed.EmbedLayout };
    },
    HydrateFallback: AppLoading,
    children: [
      { index: true, lazy: async () => ({ Component: (await import('./embed.tsx')).EmbedStartPage }) },
      { path: 'conversation/:uuid', ...page(() => import('../features/conversations/pages/conversation-detail-page.tsx')) },
    ],
  },
];

export const router = createBrowserRouter(routes);
