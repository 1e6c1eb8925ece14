/** Every route of spec §2.2, the one source of URLs in the web app. */
export const paths = {
  home: '/',
  conversationNew: '/conversation/new',
  conversation: (uuid: string, viewOnly = false) => `/conversation/${uuid}${viewOnly ? '?viewOnly=true' : ''}`,
  conversationList: '/conversation/list',
  callRecordingsUpload: '/call-recordings/upload',
  callRecordingsStatistics: '/call-recordings/statistics',
  callRecordingTranscript: (id: number | string) => `/call-recordings/${id}/transcript`,
  login: '/login',
  register: '/register',
  setPassword: '/set-password',
  connectMetaPage: '/user/connect-meta-page',
  metaLoginRedirect: '/user/meta-login-register-redirect',
  metaInvite: '/user/meta-invite',
  onboarding: '/user/onboarding',
  igRedirect: '/user/ig-redirect',
  profile: (email: string) => `/user/${email}`,
  admin: {
    hello: '/admin/hello',
    appConfig: '/admin/app-config',
    conversationTypeCreate: '/admin/conversation-type/create',
    conversationTypeList: '/admin/conversation-type/list',
    conversationTypeEdit: (id: number | string) => `/admin/conversation-type/${id}/edit`,
    conversationTypeConfig: (id: number | string) => `/admin/conversation-type/${id}/config`,
    conversationTypeContacts: (id: number | string) => `/admin/conversation-type/${id}/contacts`,
    pricing: '/admin/pricing/conversation',
    call: '/admin/call',
    messagingAccountList: '/admin/messaging-accounts/list',
    messagingAccountCreate: '/admin/messaging-accounts/create',
    messagingAccountEdit: (id: number | string) => `/admin/messaging-accounts/${id}/edit`,
    messagingAccountConfig: (id: number | string) => `/admin/messaging-accounts/${id}/config`,
    permissionList: '/admin/user-messaging-accounts/list',
    permissionCreate: '/admin/user-messaging-accounts/create',
    unanswered: '/admin/unanswered-conversations/list',
    webhookSimulator: '/admin/webhook-simulation-tool',
  },
} as const;

/** Footer links (spec §2.1); set at build time. */
export const externalLinks = {
  terms: import.meta.env.VITE_TERMS_URL ?? 'https://example.com/terms',
  privacy: import.meta.env.VITE_PRIVACY_URL ?? 'https://example.com/privacy',
};
