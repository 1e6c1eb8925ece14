import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRange } from '../../lib/http-range.ts';
import { detectMediaType } from './media-type.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures');
const head = (name: string) => readFileSync(path.join(fixtures, name)).subarray(0, 64);
const bytes = (...values: (number | string)[]) =>
  Uint8Array.from(values.flatMap((v) => (typeof v === 'string' ? [...v].map((c) => c.charCodeAt(0)) : [v])));

describe('detectMediaType', () => {
  it('recognises the committed fixtures from their bytes', () => {
    expect(detectMediaType(head('tone-3s.mp3'))).toEqual({ mime: 'audio/mpeg', extension: 'mp3' });
    expect(detectMediaType(head('tone-2s.wav'))).toEqual({ mime: 'audio/wav', extension: 'wav' });
    expect(detectMediaType(head('tone-4s.mp4'))).toEqual({ mime: 'video/mp4', extension: 'mp4' });
  });

  it('recognises other containers by their magic numbers', () => {
    expect(detectMediaType(bytes('OggS', 0, 2))?.extension).toBe('ogg');
    expect(detectMediaType(bytes('fLaC', 0, 0, 0, 34))?.extension).toBe('flac');
    expect(detectMediaType(bytes(0, 0, 0, 0x20, 'ftypM4A ', 0))?.extension).toBe('m4a');
    expect(detectMediaType(bytes(0, 0, 0, 0x14, 'ftypqt  ', 0))?.extension).toBe('mov');
    expect(detectMediaType(bytes(0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84, 'webm'))?.extension).toBe('webm');
    expect(detectMediaType(bytes(0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88, 'matroska'))?.extension).toBe('mkv');
    // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, no ID3 tag
    expect(detectMediaType(bytes(0xff, 0xfb, 0x90, 0x64))?.extension).toBe('mp3');
    // AAC ADTS, 44.1 kHz
    expect(detectMediaType(bytes(0xff, 0xf1, 0x50, 0x80))?.extension).toBe('aac');
  });

  it('refuses text and binary that only looks like a sync word', () => {
    expect(detectMediaType(bytes('hello, this is not audio'))).toBeNull();
    expect(detectMediaType(bytes('RIFF', 0, 0, 0, 0, 'TEXT'))).toBeNull();
    expect(detectMediaType(bytes(0xff, 0xfb, 0xf0, 0x00))).toBeNull(); // bitrate index 15 is invalid
    expect(detectMediaType(bytes(0xff, 0xe9, 0x90, 0x00))).toBeNull(); // layer 00 with MPEG version bits
    expect(detectMediaType(bytes(0x89, 'PNG'))).toBeNull();
    expect(detectMediaType(new Uint8Array())).toBeNull();
  });
});

describe('parseRange', () => {
  it('reads the three forms of a single byte range', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
  });

  it('sends the whole file for no header, other units or several ranges', () => {
    expect(parseRange(undefined, 1000)).toBeNull();
    expect(parseRange('items=0-1', 1000)).toBeNull();
    expect(parseRange('bytes=0-1, 5-6', 1000)).toBeNull();
  });

  it('marks ranges outside the file unsatisfiable', () => {
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-2', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=abc', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  });
});
