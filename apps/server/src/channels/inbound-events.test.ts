import { describe, expect, it } from 'vitest';
import { whatsAppChange } from '../test/channel-factories.ts';
import { parseMetaPayload, parseSmsGatewayEvent, parseTwilioSms } from './inbound-events.ts';

describe('parseMetaPayload', () => {
  it('reads every entry and messaging item of an Instagram payload (a read receipt as a delivery event), skipping reactions', () => {
    const events = parseMetaPayload({
      object: 'instagram',
      entry: [
        {
          id: 'IG1',
          time: 1,
          messaging: [
            { sender: { id: 'u1' }, recipient: { id: 'IG1' }, timestamp: 1_700_000_000_000, message: { mid: 'm1', text: 'Hi' } },
            { sender: { id: 'u1' }, recipient: { id: 'IG1' }, timestamp: 2, read: { mid: 'm0' } },
            { sender: { id: 'u1' }, recipient: { id: 'IG1' }, timestamp: 3, reaction: { mid: 'm1', action: 'react', reaction: 'love' } },
            { sender: { id: 'u1' }, recipient: { id: 'IG1' }, timestamp: 4, message: { mid: 'm9', is_deleted: true } },
            { sender: { id: 'u1' }, recipient: { id: 'IG1' }, timestamp: 6, message_edit: { mid: 'm1', text: 'Hi there', num_edit: 1 } },
            { sender: { id: 'u1' }, recipient: { id: 'IG1' }, timestamp: 7, message: { mid: 'm8', is_unsupported: true } },
          ],
        },
        {
          id: 'IG1',
          time: 2,
          messaging: [
            {
              sender: { id: 'u2' },
              recipient: { id: 'IG1' },
              timestamp: 5,
              message: { mid: 'm2', attachments: [{ type: 'image', payload: { url: 'https://cdn.example/x.jpg' } }] },
            },
          ],
        },
      ],
    });
    expect(events).toEqual([
      { kind: 'message', channel: 'INSTAGRAM', accountKey: 'IG1', senderId: 'u1', senderName: null, externalId: 'm1', text: 'Hi', sentAt: new Date(1_700_000_000_000) },
      { kind: 'delivery-watermark', channel: 'INSTAGRAM', accountKey: 'IG1', prospectId: 'u1', externalId: 'm0', state: 'read', watermark: null, mids: ['m0'] },
      expect.objectContaining({ kind: 'delete', senderId: 'u1', externalId: 'm9' }),
      expect.objectContaining({ kind: 'edit', senderId: 'u1', externalId: 'm1', text: 'Hi there' }),
      expect.objectContaining({ kind: 'unsupported', senderId: 'u1', externalId: 'm8', reason: 'is_unsupported' }),
      expect.objectContaining({ kind: 'message', senderId: 'u2', externalId: 'm2', text: '[image]', media: [{ kind: 'image', source: { url: 'https://cdn.example/x.jpg' }, mimeType: null }] }),
    ]);
  });

  it('turns an echo into an echo event addressed to the prospect, and a postback into the prospect saying its title', () => {
    const events = parseMetaPayload({
      object: 'page',
      entry: [
        {
          id: 'P1',
          messaging: [
            { sender: { id: 'P1' }, recipient: { id: 'u1' }, timestamp: 1, message: { mid: 'e1', text: 'from the inbox', is_echo: true, app_id: 263902037430900 } },
            { sender: { id: 'u1' }, recipient: { id: 'P1' }, timestamp: 2, postback: { title: 'Book a demo', payload: 'BOOK' } },
            { sender: { id: 'u1' }, recipient: { id: 'P1' }, timestamp: 3, delivery: { mids: ['e1'] } },
            { sender: { id: 'u1' }, recipient: { id: 'P1' }, timestamp: 4, read: { watermark: 1_700_000_000_000 } },
            { sender: { id: 'u1' }, recipient: { id: 'P1' }, timestamp: 5, read: {} },
          ],
        },
      ],
    });
    expect(events).toEqual([
      expect.objectContaining({ kind: 'echo', channel: 'FACEBOOK', accountKey: 'P1', recipientId: 'u1', externalId: 'e1', appId: '263902037430900' }),
      expect.objectContaining({ kind: 'message', channel: 'FACEBOOK', senderId: 'u1', text: 'Book a demo [payload: BOOK]', externalId: 'postback:u1:2' }),
      { kind: 'delivery-watermark', channel: 'FACEBOOK', accountKey: 'P1', prospectId: 'u1', externalId: 'e1', state: 'delivered', watermark: null, mids: ['e1'] },
      expect.objectContaining({ kind: 'delivery-watermark', prospectId: 'u1', state: 'read', watermark: new Date(1_700_000_000_000), mids: [] }),
    ]);
  });

  it('reads WhatsApp messages with the contact name, media as a readable line, delivery and failed statuses', () => {
    const events = parseMetaPayload(
      whatsAppChange(
        {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: '15550001111', phone_number_id: 'PN1' },
          contacts: [{ profile: { name: 'Ana' }, wa_id: '34600111222' }],
          messages: [
            { from: '34600111222', id: 'wamid.1', timestamp: '1700000000', type: 'text', text: { body: 'Hola' } },
            { from: '34600111222', id: 'wamid.2', timestamp: '1700000001', type: 'image', image: { id: 'media9', caption: 'menu' } },
            { from: '34600111222', id: 'wamid.3', timestamp: '1700000002', type: 'reaction', reaction: { emoji: '👍' } },
          ],
          statuses: [
            { id: 'wamid.out1', status: 'delivered' },
            { id: 'wamid.out2', status: 'failed', errors: [{ code: 131047, title: 'Re-engagement message' }] },
          ],
        },
        'WABA',
      ),
    );
    expect(events).toEqual([
      { kind: 'message', channel: 'WHATSAPP', accountKey: 'PN1', senderId: '34600111222', senderName: 'Ana', senderUserId: null, externalId: 'wamid.1', text: 'Hola', sentAt: new Date(1_700_000_000_000) },
      expect.objectContaining({ externalId: 'wamid.2', text: '[image] menu', senderName: 'Ana', media: [{ kind: 'image', source: { mediaId: 'media9' }, mimeType: null }] }),
      { kind: 'delivery-status', channel: 'WHATSAPP', accountKey: 'PN1', externalId: 'wamid.out1', state: 'delivered' },
      expect.objectContaining({ kind: 'send-failed', externalId: 'wamid.out2', code: '131047' }),
    ]);
  });

  it('keeps a quick reply payload with its text, reads a standby item, and a voice note as media (Messenger webhooks reference)', () => {
    const events = parseMetaPayload({
      object: 'page',
      entry: [
        {
          id: 'P1',
          messaging: [{ sender: { id: 'u1' }, recipient: { id: 'P1' }, timestamp: 1, message: { mid: 'q1', text: 'Red', quick_reply: { payload: 'COLOR_RED' } } }],
          standby: [
            { sender: { id: 'u1' }, recipient: { id: 'P1' }, timestamp: 2, message: { mid: 'a1', attachments: [{ type: 'audio', payload: { url: 'https://cdn.fbsbx.com/v.mp4' } }] } },
          ],
        },
      ],
    });
    expect(events).toEqual([
      expect.objectContaining({ kind: 'message', externalId: 'q1', text: 'Red [payload: COLOR_RED]' }),
      expect.objectContaining({ kind: 'message', externalId: 'a1', text: '[voice note]', standby: true, media: [{ kind: 'audio', source: { url: 'https://cdn.fbsbx.com/v.mp4' }, mimeType: null }] }),
    ]);
  });

  it('reads a WhatsApp username user (business-scoped id, no phone) and an unsupported message as a note', () => {
    const events = parseMetaPayload(
      whatsAppChange(
        {
          metadata: { phone_number_id: 'PN1' },
          contacts: [{ profile: { username: 'ana.b' }, user_id: 'US.13491208655302741918' }],
          messages: [
            { from_user_id: 'US.13491208655302741918', id: 'w1', timestamp: '1700000000', type: 'text', text: { body: 'Hola' } },
            { from_user_id: 'US.13491208655302741918', id: 'w2', timestamp: '1700000001', type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] },
          ],
        },
        'WABA',
      ),
    );
    expect(events).toEqual([
      expect.objectContaining({ kind: 'message', senderId: 'US.13491208655302741918', senderUserId: 'US.13491208655302741918', senderName: '@ana.b', text: 'Hola' }),
      expect.objectContaining({ kind: 'unsupported', externalId: 'w2', reason: 'unsupported: Message type unknown' }),
    ]);
  });

  it('gives nothing for unknown objects and malformed items instead of throwing', () => {
    expect(parseMetaPayload({ object: 'user', entry: [] })).toEqual([]);
    expect(parseMetaPayload({ object: 'page', entry: [null, 3, { messaging: [null, { message: 'x' }] }] })).toEqual([]);
    expect(parseMetaPayload('nope')).toEqual([]);
  });
});

describe('parseTwilioSms and parseSmsGatewayEvent', () => {
  it('reads an SMS with its media', () => {
    expect(
      parseTwilioSms({ MessageSid: 'SM1', From: '+15551230000', To: '+15559870000', Body: 'Hello', NumMedia: '1', MediaUrl0: 'https://api.twilio.com/m/1', MediaContentType0: 'image/jpeg' }),
    ).toEqual([expect.objectContaining({ channel: 'TWILIO', accountKey: '+15559870000', senderId: '+15551230000', externalId: 'SM1', text: 'Hello\n[image] https://api.twilio.com/m/1' })]);
    expect(parseTwilioSms({ MessageSid: 'SM2', From: '+1', To: '+2', Body: '  ' })).toEqual([]);
  });

  it('reads sms:received in the current (sender/recipient) and the old (phoneNumber) format, keyed by the event id', () => {
    // The gateway's documented payloads (android-sms-gateway docs, features/webhooks): `sender` since 2026-02-17.
    const event = { deviceId: 'dev1', event: 'sms:received', id: 'evt1', payload: { message: 'Hi', sender: '+34600', recipient: '+34699', messageId: 'msg1', receivedAt: '2026-11-24T10:00:00.000+01:00' } };
    expect(parseSmsGatewayEvent(event)).toEqual([
      { kind: 'message', channel: 'SMS_GATEWAY', accountKey: 'dev1', senderId: '+34600', senderName: null, externalId: 'evt1', text: 'Hi', sentAt: new Date('2026-11-24T09:00:00.000Z') },
    ]);
    const old = { ...event, id: 'evt2', payload: { message: 'Hi', phoneNumber: '+34601', messageId: 'msg1' } };
    expect(parseSmsGatewayEvent(old)).toEqual([expect.objectContaining({ senderId: '+34601', externalId: 'evt2' })]);
    expect(parseSmsGatewayEvent({ ...event, event: 'sms:delivered' })).toEqual([]);
  });
});
