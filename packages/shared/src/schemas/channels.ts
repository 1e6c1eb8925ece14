import { z } from 'zod';

/** The answer to an accepted webhook or simulated webhook. */
export const webhookReceived = z.object({ received: z.literal(true) });

const field = (name: string, max = 1600) => z.string().trim().min(1, `${name} is required`).max(max, `${name} is too long`);

/**
 * Twilio's inbound SMS form parameters, as the webhook simulator posts them to
 * POST /api/admin/webhook-simulation/twilio (the real webhook receives them form-encoded).
 */
export const simulatedTwilioSms = z.object({
  MessageSid: field('MessageSid', 64),
  AccountSid: z.string().max(64).optional(),
  From: field('From', 64),
  To: field('To', 64),
  Body: field('Body'),
  NumMedia: z.string().max(4).optional(),
});

/** An SMS Gateway for Android `sms:received` event, as POST /api/admin/webhook-simulation/sms-gateway takes it. */
export const simulatedSmsGatewayEvent = z.object({
  deviceId: field('deviceId', 128),
  event: z.literal('sms:received', { error: 'event must be sms:received' }),
  id: field('id', 128),
  webhookId: z.string().max(128).optional(),
  payload: z.object({
    message: field('payload.message'),
    // The gateway's current payload names the prospect `sender` (and our SIM `recipient`); `phoneNumber` is the
    // deprecated name of `sender` (android-sms-gateway docs, features/webhooks). One of the two is needed.
    sender: z.string().min(1).max(64).optional(),
    recipient: z.string().max(64).optional(),
    phoneNumber: z.string().min(1).max(64).optional(),
    simNumber: z.number().int().optional(),
    messageId: z.string().max(128).optional(),
    receivedAt: z.string().max(64).optional(),
  }).refine((p) => Boolean(p.sender ?? p.phoneNumber), { message: 'payload.sender (or the older payload.phoneNumber) is required', path: ['sender'] }),
});

/** POST /api/admin/conversation/{id}/messages/rebuild: how many messages the conversation now holds. */
export const rebuildResponse = z.object({ messages: z.number() });
