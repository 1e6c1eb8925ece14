import { describe, expect, it } from 'vitest';
import { PIECE_CHARS, PlaybackTracker, splitPayload } from './playback.ts';
import { base64ByteLength, isBase64, realtimeAppend, twilioMedia } from './twilio-media.ts';

const audio = (bytes: number) => Buffer.alloc(bytes, 0x7f).toString('base64');

describe('splitPayload', () => {
  it('keeps small payloads whole and cuts large ones into 60 ms pieces with the same bytes', () => {
    expect(splitPayload(audio(480))).toEqual([audio(480)]);
    const bytes = Buffer.from(Array.from({ length: 1301 }, (_, i) => i % 256));
    const pieces = splitPayload(bytes.toString('base64'));
    expect(pieces.map((p) => base64ByteLength(p))).toEqual([480, 480, 341]);
    expect(pieces.every((p) => p.length <= PIECE_CHARS)).toBe(true);
    expect(Buffer.concat(pieces.map((p) => Buffer.from(p, 'base64'))).equals(bytes)).toBe(true);
  });
});

describe('PlaybackTracker', () => {
  it('counts played audio by the echoed marks of the current item', () => {
    const tracker = new PlaybackTracker();
    const a = tracker.sent('item_a', audio(480));
    const b = tracker.sent('item_a', audio(160));
    tracker.sent('item_a', audio(480));
    tracker.played(b); // marks come back in order: a has played too
    expect(tracker.idle).toBe(false);
    expect(tracker.interrupt()).toEqual({ itemId: 'item_a', audioEndMs: 80 });
    // After a clear, the echoes of cleared marks do not count.
    tracker.played(a);
    expect(tracker.idle).toBe(true);
    expect(tracker.interrupt()).toBeNull();
  });

  it('answers nothing to truncate once everything has played, and restarts per item', () => {
    const tracker = new PlaybackTracker();
    const a = tracker.sent('item_a', audio(800));
    tracker.played(a);
    expect(tracker.idle).toBe(true);
    expect(tracker.interrupt()).toBeNull();
    tracker.sent('item_b', audio(160));
    expect(tracker.interrupt()).toEqual({ itemId: 'item_b', audioEndMs: 0 });
  });
});

describe('frames', () => {
  it('accepts only base64 payloads, which need no JSON escaping', () => {
    expect(isBase64(audio(3))).toBe(true);
    expect(isBase64('ab"c')).toBe(false);
    expect(isBase64(42)).toBe(false);
    expect(JSON.parse(realtimeAppend('AAAA'))).toEqual({ type: 'input_audio_buffer.append', audio: 'AAAA' });
    expect(JSON.parse(twilioMedia('MZ1', 'AAAA'))).toEqual({ event: 'media', streamSid: 'MZ1', media: { payload: 'AAAA' } });
  });
});
