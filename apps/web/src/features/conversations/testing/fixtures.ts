import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';

/** The conversation the component tests open (any uuid pattern the routes accept). */
export const TEST_UUID = '11111111-2222-4333-8444-555555555555';

/** A prospect on WhatsApp, for conversations the team answers. */
export const TEST_PROSPECT = {
  uuid: 'aaaaaaaa-2222-4333-8444-555555555555',
  name: 'Dana',
  messagingAccount: { id: 1, pageName: 'Shop', type: 'WHATSAPP' as const },
};

/** A conversation as GET /api/conversation/{uuid} answers it: a visitor's web chat unless overridden. */
export const conversationDetail = (over: Partial<ConversationDetail> = {}): ConversationDetail => ({
  id: 1,
  uuid: TEST_UUID,
  phase: 0,
  rating: null,
  recordingDuration: null,
  recordingUrl: null,
  conversationTypeId: 1,
  ConversationType: { id: 1, title: 'Widgets', initialMessage: 'Hello! How can I help?', conversation_phases: [] },
  phaseCount: 2,
  prospectId: null,
  Prospect: null,
  messages: [],
  canAdminister: false,
  aiPaused: false,
  isDemoAgent: false,
  ended: false,
  bookings: [],
  assignee: null,
  state: 'open',
  snoozedUntil: null,
  notes: [],
  contact: null,
  leadFields: {},
  leadFieldDefinitions: [],
  analysis: null,
  ...over,
});
