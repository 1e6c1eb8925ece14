/** The query keys of conversation types; `all` prefixes every other one, so a change to a type refreshes them all. */
export const conversationTypeKeys = {
  all: () => ['conversation-types'] as const,
  adminList: () => ['conversation-types', 'admin-list'] as const,
  detail: (id: number | string) => ['conversation-types', 'detail', String(id)] as const,
  phases: (typeId: number | string) => ['conversation-types', 'phases', String(typeId)] as const,
  crmPipelines: (typeId: string) => ['conversation-types', 'crm', typeId, 'pipelines'] as const,
  crmContacts: <P>(typeId: string, page: P) => ['conversation-types', 'crm', typeId, 'contacts', page] as const,
  /** The select of the messaging account form. */
  options: () => ['conversation-types', 'options'] as const,
  /** The pricing page's prompt lengths. */
  pricingPrompts: () => ['conversation-types', 'pricing-prompts'] as const,
};
