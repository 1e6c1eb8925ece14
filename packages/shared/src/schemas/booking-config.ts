import { z } from 'zod';

/**
 * `booking` of a conversation type's config (issue 22): the calendar the agent's check_availability and
 * book_meeting tools use. "ghl" books into a GoHighLevel calendar with the type's CRM credentials; "calcom"
 * into a Cal.com event type (API v2, base URL CALCOM_API_URL).
 */
/** `confirm`: book_meeting runs only after the prospect's yes to the slot the agent described. */
const confirm = z.boolean().optional();

export const bookingConfig = z.discriminatedUnion('provider', [
  z.looseObject({ provider: z.literal('ghl'), calendarId: z.string().trim().min(1, 'must not be empty').max(200), confirm }),
  z.looseObject({
    provider: z.literal('calcom'),
    apiKey: z.string().trim().min(1, 'must not be empty').max(4000),
    eventTypeId: z.number().int().positive(),
    /** Meeting length when Cal.com's slot has no end. */
    lengthMinutes: z.number().int().min(5).max(480).optional(),
    confirm,
  }),
]);
export type BookingConfig = z.infer<typeof bookingConfig>;
