import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/build-test-app.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildAdmin } from '../../test/factories.ts';
import { DEFAULT_PRICES_FILE, estimateConversationCost, loadPrices } from './pricing.service.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const defaults = 'systemPromptLength=1774&userPromptLength=4134&messagesLength=288&messagesPerMinute=5';
const url = (query: string) => `/api/admin/pricing/conversation?${query}`;

/** Round numbers make the expected costs checkable by hand. */
const roundPrices = {
  charactersPerToken: 4,
  llm: { inputPerMillionTokens: 1, outputPerMillionTokens: 2 },
  tts: { perMillionCharacters: 10 },
  voice: { perMinute: 0.01 },
  speechRecognition: { per15Seconds: 0.02 },
  recordingStorage: { perMinutePerMonth: 0.001 },
};

describe('GET /api/admin/pricing/conversation', () => {
  it('answers the six costs of one minute with the bundled prices', async () => {
    const res = await t.request({ method: 'GET', url: url(defaults), as: admin.cookie });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const bundled = JSON.parse(readFileSync(DEFAULT_PRICES_FILE, 'utf8'));
    // (1774 + 4134) / 4 = 1477 input tokens and 288 / 4 = 72 output tokens per message, 5 messages.
    const gpt = 5 * ((1477 * bundled.llm.inputPerMillionTokens) / 1e6 + (72 * bundled.llm.outputPerMillionTokens) / 1e6);
    expect(body.totalGptCost).toBeCloseTo(gpt, 12);
    expect(body.totalAzureCost).toBeCloseTo((5 * 288 * bundled.tts.perMillionCharacters) / 1e6, 12);
    expect(body.voiceMinutes).toBe(bundled.voice.perMinute);
    expect(body.speechRecognition).toBeCloseTo(4 * bundled.speechRecognition.per15Seconds, 12);
    expect(body.twilioRecordings).toBe(bundled.recordingStorage.perMinutePerMonth);
    const sum = body.totalGptCost + body.totalAzureCost + body.voiceMinutes + body.speechRecognition + body.twilioRecordings;
    expect(body.totalCosts).toBeCloseTo(sum, 12);
    expect(Object.keys(body).sort()).toEqual(
      ['speechRecognition', 'totalAzureCost', 'totalCosts', 'totalGptCost', 'twilioRecordings', 'voiceMinutes'],
    );
  });

  it('grows the LLM and TTS costs with the prompt lengths and message rate', async () => {
    const base = (await t.request({ method: 'GET', url: url(defaults), as: admin.cookie })).json();
    const longer = (
      await t.request({ method: 'GET', url: url('systemPromptLength=17740&userPromptLength=4134&messagesLength=288&messagesPerMinute=10'), as: admin.cookie })
    ).json();
    expect(longer.totalGptCost).toBeGreaterThan(base.totalGptCost * 2);
    expect(longer.totalAzureCost).toBeCloseTo(base.totalAzureCost * 2, 12);
    expect(longer.voiceMinutes).toBe(base.voiceMinutes);
  });

  it('answers 400 naming the field for a missing, non-numeric or negative input', async () => {
    const cases: Array<[string, string]> = [
      ['userPromptLength=1&messagesLength=1&messagesPerMinute=1', 'systemPromptLength'],
      ['systemPromptLength=abc&userPromptLength=1&messagesLength=1&messagesPerMinute=1', 'systemPromptLength'],
      ['systemPromptLength=1&userPromptLength=1&messagesLength=-5&messagesPerMinute=1', 'messagesLength'],
      ['systemPromptLength=1&userPromptLength=1&messagesLength=1&messagesPerMinute=', 'messagesPerMinute'],
    ];
    for (const [query, field] of cases) {
      const res = await t.request({ method: 'GET', url: url(query), as: admin.cookie });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error, query).toContain(field);
    }
  });

  it('is 401 anonymous and 403 NORMAL', async () => {
    expect((await t.request({ method: 'GET', url: url(defaults) })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: url(defaults), as: normal.cookie })).statusCode).toBe(403);
  });

  it('uses the prices of PRICING_FILE when set', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prices-'));
    const file = path.join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify(roundPrices));
    const custom = await buildTestApp({ PRICING_FILE: file });
    try {
      const res = await custom.request({ method: 'GET', url: url('systemPromptLength=3000&userPromptLength=1000&messagesLength=400&messagesPerMinute=2'), as: (await buildAdmin(custom.ctx)).cookie });
      // 2 × (1000 input tokens × $1/M + 100 output tokens × $2/M) = 0.0024; TTS 2 × 400 × $10/M = 0.008.
      expect(res.json()).toEqual({
        totalGptCost: expect.closeTo(0.0024, 12),
        totalAzureCost: expect.closeTo(0.008, 12),
        voiceMinutes: 0.01,
        speechRecognition: 0.08,
        twilioRecordings: 0.001,
        totalCosts: expect.closeTo(0.0024 + 0.008 + 0.01 + 0.08 + 0.001, 12),
      });
    } finally {
      await custom.close();
    }
  });
});

describe('prices file', () => {
  it('refuses a prices file with a missing or negative price, naming it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prices-'));
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...roundPrices, voice: { perMinute: -1 } }));
    expect(() => loadPrices(file)).toThrow(/voice\.perMinute/);
    writeFileSync(file, '{oops');
    expect(() => loadPrices(file)).toThrow(/Cannot read the prices file/);
  });

  it('computes zero usage costs for zero messages but still the per-minute Twilio items', () => {
    const result = estimateConversationCost(loadPrices(DEFAULT_PRICES_FILE), {
      systemPromptLength: 1000,
      userPromptLength: 1000,
      messagesLength: 100,
      messagesPerMinute: 0,
    });
    expect(result.totalGptCost).toBe(0);
    expect(result.totalAzureCost).toBe(0);
    expect(result.totalCosts).toBeCloseTo(result.voiceMinutes + result.speechRecognition + result.twilioRecordings, 12);
  });
});
