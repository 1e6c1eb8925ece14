/**
 * Every `code` an API error body `{ error, code }` can carry (DESIGN.md §5), in one list so the server can only
 * throw a known code (AppError and its helpers take `ErrorCode`) and the web can compare against one. One word
 * per thing: a missing conversation is `CONVERSATION_NOT_FOUND` wherever it is found missing. What each code
 * means and with which status it leaves: docs/api-errors.md (a test keeps the two in step).
 *
 * These are the codes of HTTP answers. The codes stored in an unanswered conversation's error records
 * (agent and channel failures such as `HUMAN_REQUESTED`) are a separate vocabulary.
 */
export const ERROR_CODES = [
  // Any route: the request itself, sign-in and permissions, the server's state.
  'BAD_REQUEST',
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'CONFLICT',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RANGE_NOT_SATISFIABLE',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  'DB_UNAVAILABLE',
  'NOT_READY',

  // Accounts, passwords, registration, invitations.
  'ACCOUNT_LOCKED',
  'EMAIL_NOT_CONFIGURED',
  'EMAIL_TAKEN',
  'INVALID_SET_PASSWORD_LINK',
  'INVITATION_INVALID',
  'INVITATION_NOT_FOUND',
  'LAST_ADMIN',
  'NO_PASSWORD',
  'PASSWORD_ALREADY_SET',
  'PASSWORD_TOO_COMMON',
  'REGISTRATION_CLOSED',
  'REGISTRATION_INVITE_ONLY',
  'USER_NOT_FOUND',
  'CANNOT_CHANGE_SELF',
  'WRONG_PASSWORD',

  // Facebook login and connecting Meta accounts.
  'INVALID_LINK_TOKEN',
  'INVALID_OAUTH_STATE',
  'META_CONNECT_FAILED',
  'META_LINK_PASSWORD_REQUIRED',
  'META_NO_EMAIL',
  'META_NOT_CONFIGURED',
  'META_NOTHING_GRANTED',
  'META_OTHER_FACEBOOK',

  // Messaging accounts and who may use them; conversation types, their phases and configs.
  'CONVERSATION_PHASE_NOT_FOUND',
  'CONVERSATION_TYPE_NOT_FOUND',
  'INVALID_CONFIG',
  'MESSAGING_ACCOUNT_EXISTS',
  'MESSAGING_ACCOUNT_NOT_FOUND',
  'NOT_ACCOUNT_OWNER',
  'PERMISSION_EXISTS',
  'PERMISSION_NOT_FOUND',
  // Playbook versions and agent tests (issue 25).
  'TYPE_VERSION_NOT_FOUND',
  'SCENARIO_NOT_FOUND',
  'TEST_RUN_NOT_FOUND',
  'PUBLISH_TESTS_FAILING',
  // A/B tests of playbooks (issue 26).
  'AB_TEST_RUNNING',
  'AB_TEST_NOT_RUNNING',

  // Conversations, messages, hand-off and follow-ups.
  'AI_PAUSED',
  'ASSIGNEE_NOT_ALLOWED',
  'CANNED_REPLY_EXISTS',
  'CANNED_REPLY_NOT_FOUND',
  'CONTACT_NOT_FOUND',
  'CONVERSATION_BUSY',
  'CONVERSATION_CHANGED',
  'CONVERSATION_ENDED',
  'CONVERSATION_NOT_FOUND',
  'CONVERSATION_RATE_LIMITED',
  'EMPTY_MESSAGE',
  'GUARD_FAILED',
  'INVALID_PHASE',
  'LLM_FAILED',
  'MESSAGE_NOT_FOUND',
  'NO_CONVERSATION_TYPE',
  'NO_LLM',
  'NO_WORKING_PHASE',
  'NOT_A_PROSPECT_CONVERSATION',
  'NOT_WORKING_PHASE',
  'OUTSIDE_MESSAGING_WINDOW',
  'PHASE_NOT_IN_TYPE',
  'TOO_MANY_STREAMS',

  // Channel webhooks, the webhook simulator, stored media and history rebuilds.
  'CHANNEL_ERROR',
  'INVALID_WEBHOOK',
  'MEDIA_FILE_MISSING',
  'MEDIA_NOT_FOUND',
  'NO_CHANNEL_HISTORY',
  'NO_SUCH_ACCOUNT',
  'NOTHING_TO_SIMULATE',
  'REAL_PROSPECT',
  'SIGNATURE_INVALID',
  'SIGNATURE_MISSING',

  // Calls (Twilio).
  'INVALID_PHONE',
  'NO_TWILIO_ACCOUNT',
  'TWILIO_ACCOUNT_INCOMPLETE',
  'TWILIO_REFUSED',
  'TWILIO_UNAVAILABLE',

  // Call recordings: uploads, storage and transcripts.
  'BAD_UPLOAD',
  'DAILY_UPLOAD_LIMIT',
  'FILE_TOO_LARGE',
  'INSUFFICIENT_STORAGE',
  'NO_FILES',
  'NOT_MEDIA',
  'NOT_MULTIPART',
  'RECORDING_FILE_MISSING',
  'RECORDING_NOT_FOUND',
  'STORAGE_QUOTA_EXCEEDED',
  'TOO_MANY_FILES',
  'TRANSCRIPT_NOT_FOUND',
  'TRANSCRIPTION_FAILED',
  'TRANSCRIPTION_NOT_AUTHORIZED',
  'TRANSCRIPTION_NOT_CONFIGURED',
  'TRANSCRIPTION_UNREACHABLE',
  'UNEXPECTED_FIELD',
  'UNREADABLE_MEDIA',
  'UPLOAD_TOO_LARGE',

  // The CRM (GoHighLevel).
  'CRM_AUTH_FAILED',
  'CRM_FORBIDDEN',
  'CRM_NOT_CONFIGURED',
  'CRM_NOT_FOUND',
  'CRM_NOT_LINKED',
  'CRM_RATE_LIMITED',
  'CRM_REJECTED',
  'CRM_STAGE_NOT_FOUND',
  'CRM_UNAVAILABLE',

  // Compliance: opt-outs and quiet hours (docs/compliance.md).
  'OPTED_OUT',
  'QUIET_HOURS',
  'NO_WHATSAPP_OPT_IN',
  'CONSENT_CSV_INVALID',
  'CAMPAIGN_NOT_FOUND',
  'CAMPAIGN_STATE',
  'CAMPAIGN_CSV_INVALID',
  'CAMPAIGN_CHANNEL_UNAVAILABLE',

  // Integrations: API keys and outbound webhooks (docs/api.md).
  'API_KEY_INVALID',
  'API_KEY_NOT_ALLOWED',
  'API_KEY_NOT_FOUND',
  'API_KEY_SCOPE_MISSING',
  'LEAD_CHANNEL_UNAVAILABLE',
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_URL_REFUSED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/** Narrows a code read from elsewhere (a framework error, a response body) to the list. */
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && KNOWN.has(code);
