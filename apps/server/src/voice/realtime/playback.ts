import { base64ByteLength, MULAW_BYTES_PER_MS } from './twilio-media.ts';

/**
 * Outbound audio is cut into pieces of at most this many base64 characters (a multiple of 4, so every piece
 * is valid base64 and the pieces concatenate to the same bytes): 640 characters = 480 bytes = 60 ms of μ-law.
 * Each piece is followed by a mark, so what the caller has heard is known to within 60 ms.
 */
export const PIECE_CHARS = 640;

/** Splits a base64 payload into pieces of at most PIECE_CHARS characters without decoding it. */
export function splitPayload(b64: string): string[] {
  if (b64.length <= PIECE_CHARS) return [b64];
  const pieces: string[] = [];
  for (let i = 0; i < b64.length; i += PIECE_CHARS) pieces.push(b64.slice(i, i + PIECE_CHARS));
  return pieces;
}

interface PendingMark {
  name: string;
  itemId: string;
  /** Milliseconds of the item's audio that have played once Twilio echoes this mark. */
  endMs: number;
}

/**
 * Which of the agent's audio the caller has actually heard. Every piece sent to Twilio is followed by a
 * mark; Twilio echoes a mark once the audio before it has played (and echoes every pending mark at once on
 * `clear`, which is why the queue is dropped before a clear). Audio is never held back waiting for marks:
 * they are bookkeeping only, so an empty queue cannot stall the stream (a failure of Twilio's own sample).
 */
export class PlaybackTracker {
  private pending: PendingMark[] = [];
  private itemId: string | null = null;
  private sentMs = 0;
  private playedMs = 0;
  private sequence = 0;

  /** Records a piece of `itemId`'s audio as sent; answers the name of the mark to send after it. */
  sent(itemId: string, b64: string): string {
    if (itemId !== this.itemId) {
      this.itemId = itemId;
      this.sentMs = 0;
      this.playedMs = 0;
    }
    this.sentMs += base64ByteLength(b64) / MULAW_BYTES_PER_MS;
    this.sequence += 1;
    const name = `m${this.sequence}`;
    this.pending.push({ name, itemId, endMs: this.sentMs });
    return name;
  }

  /** Twilio echoed a mark: the audio before it has played. Unknown names (cleared ones) are ignored. */
  played(name: string): void {
    const index = this.pending.findIndex((m) => m.name === name);
    if (index < 0) return;
    const mark = this.pending[index];
    // Marks are echoed in order; earlier ones still queued have played too.
    this.pending.splice(0, index + 1);
    if (mark.itemId === this.itemId) this.playedMs = mark.endMs;
  }

  /**
   * The caller started speaking: forget the queued audio and answer what to truncate — the item that was
   * still playing and how much of it was heard — or null when nothing was left to play.
   */
  interrupt(): { itemId: string; audioEndMs: number } | null {
    const playing = this.itemId !== null && this.pending.some((m) => m.itemId === this.itemId);
    const result = playing ? { itemId: this.itemId!, audioEndMs: Math.floor(this.playedMs) } : null;
    this.pending = [];
    this.itemId = null;
    this.sentMs = 0;
    this.playedMs = 0;
    return result;
  }

  /** True when everything sent has played (no mark outstanding). */
  get idle(): boolean {
    return this.pending.length === 0;
  }
}
