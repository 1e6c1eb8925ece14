import { describe, expect, it } from 'vitest';
import { ResponseLatency } from './response-latency.ts';

describe('ResponseLatency', () => {
  it('measures the caller stopping to the first agent audio, once per caller turn', () => {
    let now = 1000;
    const latency = new ResponseLatency(() => now);
    // The opening line: nobody spoke yet, nothing to measure.
    expect(latency.audioSent()).toBeNull();
    latency.speechStopped();
    now = 1350.4;
    expect(latency.audioSent()).toBe(350);
    // Later pieces of the same answer are not new samples.
    now = 1400;
    expect(latency.audioSent()).toBeNull();
  });

  it('restarts when the caller speaks again before the answer', () => {
    let now = 0;
    const latency = new ResponseLatency(() => now);
    latency.speechStopped();
    now = 300;
    latency.speechStarted();
    now = 900;
    expect(latency.audioSent()).toBeNull();
    latency.speechStopped();
    now = 1720;
    expect(latency.audioSent()).toBe(820);
  });
});
