import { queryOptions } from '@tanstack/react-query';
import type { Session } from '@sales-agent/shared/schemas/user';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export const metaKeys = {
  config: () => ['meta-config'] as const,
  pageName: (type: 'INSTAGRAM' | 'FACEBOOK', pageId: string) => ['meta-page-name', type, pageId] as const,
};

export type ConnectType = 'INSTAGRAM' | 'FACEBOOK' | 'WHATSAPP';
export const CONNECT_TYPES: ConnectType[] = ['INSTAGRAM', 'FACEBOOK', 'WHATSAPP'];
export const isConnectType = (type: string): type is ConnectType => (CONNECT_TYPES as string[]).includes(type);

/** Client ids and dialog URLs, read from the server at run time so one build serves any deployment. */
export interface MetaPublicConfig {
  metaAppId: string | null;
  instagramAppId: string | null;
  facebookDialogUrl: string;
  instagramDialogUrl: string;
  /** Which connect flows the server can start (its Meta / Instagram app is configured). */
  canConnect?: Record<ConnectType, boolean>;
}

export const metaConfigQuery = () =>
  queryOptions({ queryKey: metaKeys.config(), queryFn: () => api.get<MetaPublicConfig>('/api/meta-api/config'), staleTime: Infinity });

/**
 * Sends the browser to Meta's OAuth dialog. The server builds the URL with the signed state (and sets the
 * matching nonce cookie), so the return trip can only be finished by this browser and session.
 */
export function useStartMetaOAuth() {
  const write = useWrite({
    write: async (type: ConnectType | 'LOGIN') => {
      const { url } = await api.get<{ url: string }>('/api/meta-api/connect-url', { type });
      window.location.assign(url);
    },
  });
  /** The flow being started: its button stays busy until the browser has left for Meta. */
  const starting = write.isPending || write.isSuccess ? (write.variables ?? null) : null;
  return { start: write.mutate, starting };
}

export const connectMetaPage = (type: ConnectType, code: string, state: string | null) =>
  api.post<{ pageName: string }>('/api/meta-api/connect-meta-page', { code, ...(state ? { state } : {}) }, { type });

/**
 * Facebook login's first step. A new account (no password yet) also gets the one-time token of its
 * set-password link; a failure is the page's outcome, not a toast.
 */
export const useMetaLoginRegister = () =>
  useWrite({
    write: ({ code, state }: { code: string; state: string | null }) =>
      api.post<Session & { setPasswordToken?: string }>('/api/meta-api/meta-login-register-redirect', { code, ...(state ? { state } : {}) }),
    notice: 'Login successful',
    showsItself: () => true,
  });

/** Facebook login's second step for an account with a password: prove it once, then Facebook is linked. */
export const useLinkFacebook = () =>
  useWrite({
    write: ({ linkToken, password }: { linkToken: string; password: string }) => api.post<Session>('/api/meta-api/link-facebook', { linkToken, password }),
    notice: 'Login successful',
  });

/** The live name of a connected Page / Instagram account (spec §7.4); the server uses the stored token. */
export const pageNameQuery = (pageId: string, type: 'INSTAGRAM' | 'FACEBOOK') =>
  queryOptions({
    queryKey: metaKeys.pageName(type, pageId),
    queryFn: async () => (await api.get<{ name: string }>('/api/meta-api/page-name', { pageId, type })).name,
    staleTime: 60 * 60_000,
    retry: false,
  });
