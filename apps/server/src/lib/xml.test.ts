import { describe, expect, it } from 'vitest';
import { escapeXml } from './xml.ts';

describe('escapeXml', () => {
  it('replaces the five characters XML reserves, in text and in attribute values, and nothing else', () => {
    expect(escapeXml(`<Say voice="x">Tom & Jerry's</Say>`)).toBe('&lt;Say voice=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/Say&gt;');
    expect(escapeXml('+15550001111 · Grüße')).toBe('+15550001111 · Grüße');
  });
});
