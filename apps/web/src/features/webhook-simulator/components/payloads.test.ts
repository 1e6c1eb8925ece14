import { describe, expect, it } from 'vitest';
import { buildSimulation, randomSenderId, type SimulatedAccount } from './payloads.ts';

const now = new Date('2026-11-24T10:00:00.000Z');
const fixed = { now, randomId: () => 'abc123' };
const account = (type: SimulatedAccount['type'], pageId: string, config = '{}', pageName = 'Page'): SimulatedAccount => ({
  id: 7,
  type,
  pageId,
  pageName,
  config,
});

describe('buildSimulation', () => {
  it('builds the Instagram payload of spec §3 for the Meta webhook', () => {
    const sim = buildSimulation({ channel: 'INSTAGRAM', account: account('INSTAGRAM', '1784001'), senderId: ' 999 ', text: 'Hi', ...fixed });
    expect(sim).toEqual({
      url: '/api/meta-api/webhook',
      body: {
        object: 'instagram',
        entry: [
          {
            id: '1784001',
            time: now.getTime(),
            messaging: [
              { sender: { id: '999' }, recipient: { id: '1784001' }, timestamp: now.getTime(), message: { mid: 'm_sim_abc123', text: 'Hi' } },
            ],
          },
        ],
      },
    });
  });

  it('uses object "page" for Messenger', () => {
    const sim = buildSimulation({ channel: 'FACEBOOK', account: account('FACEBOOK', 'P1'), senderId: 'psid', text: 'Yo', ...fixed });
    expect((sim.body as { object: string }).object).toBe('page');
  });

  it('builds a WhatsApp Cloud change with phone_number_id, the contact profile name and a text message', () => {
    const sim = buildSimulation({
      channel: 'WHATSAPP',
      account: account('WHATSAPP', '106540352242922', '{"wabaId":"WABA9"}', '+1 555 000 1111'),
      senderId: '16505551234',
      text: 'Hello',
      profileName: ' Ada ',
      ...fixed,
    });
    expect(sim).toEqual({
      url: '/api/meta-api/webhook',
      body: {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'WABA9',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550001111', phone_number_id: '106540352242922' },
                  contacts: [{ profile: { name: 'Ada' }, wa_id: '16505551234' }],
                  messages: [
                    { from: '16505551234', id: 'wamid.SIMABC123', timestamp: String(now.getTime() / 1000), type: 'text', text: { body: 'Hello' } },
                  ],
                },
              },
            ],
          },
        ],
      },
    });
  });

  it('sends Twilio form parameters and a gateway sms:received event to the ADMIN simulation endpoints', () => {
    expect(
      buildSimulation({ channel: 'TWILIO', account: account('TWILIO', '+15550001111', '{"accountSid":"AC1"}'), senderId: '+16505551234', text: 'Hey', ...fixed }),
    ).toEqual({
      url: '/api/admin/webhook-simulation/twilio',
      body: { MessageSid: 'SMabc123', AccountSid: 'AC1', From: '+16505551234', To: '+15550001111', Body: 'Hey', NumMedia: '0' },
    });
    expect(
      buildSimulation({ channel: 'SMS_GATEWAY', account: account('SMS_GATEWAY', 'dev-1'), senderId: '+16505551234', text: 'Hey', ...fixed }),
    ).toEqual({
      url: '/api/admin/webhook-simulation/sms-gateway',
      body: {
        deviceId: 'dev-1',
        event: 'sms:received',
        id: 'abc123',
        payload: { message: 'Hey', phoneNumber: '+16505551234', messageId: 'sim-abc123', receivedAt: now.toISOString() },
      },
    });
  });
});

describe('randomSenderId', () => {
  it('gives ids in each channel’s format', () => {
    expect(randomSenderId('INSTAGRAM')).toMatch(/^1784\d{13}$/);
    expect(randomSenderId('WHATSAPP')).toMatch(/^1555\d{7}$/);
    expect(randomSenderId('TWILIO')).toMatch(/^\+1555\d{7}$/);
  });
});
