/** The query keys of messaging accounts; `all` is the list and prefixes every other one. */
export const messagingAccountKeys = {
  all: () => ['messaging-accounts'] as const,
  detail: (id: number | string) => ['messaging-accounts', String(id)] as const,
  /** A select's options, per screen: each labels the accounts its own way. */
  options: (screen: 'conversation-type' | 'permission') => ['messaging-accounts', 'options', screen] as const,
};
