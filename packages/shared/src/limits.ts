/** Business constants and limits of spec §9, in one place for both apps. */
export const LIMITS = {
  toastLifetimeMs: 3_000,
  globalMessageIntervalMs: 10_800_000,
  globalMessageAutoCloseMs: 10_000,
  unansweredRefreshMs: 3_000,
  conversationRefreshMs: 10_000,
  connectRedirectDelayMs: 3_000,
  phaseDeleteReloadDelayMs: 1_000,
  setPasswordAttempts: 6,
  setPasswordRetryDelayMs: 2_000,
  passwordMinLength: 8,
  topUsers: 5,
  textareaMaxLines: 9,
  textareaLineHeightPx: 24,
  phasePromptRows: 15,
  appConfigRows: 10,
  contactsPageSizes: [10, 20] as const,
  conversationPageSizes: [10, 50, 100] as const,
  pricingPeriodsMinutes: [1, 60, 1440, 9600] as const,
  pricingDecimals: 6,
} as const;

/** Truncation lengths of spec §9. */
export const TRUNCATE = {
  typeSelectLabel: 70,
  typeList: 200,
  configHeading: 50,
  pricingPrompt: 70,
  conversationListType: 30,
  phaseSelect: 50,
} as const;

export const DEFAULT_SUPPORT_MESSAGE = 'Something went wrong! Please contact support.';
