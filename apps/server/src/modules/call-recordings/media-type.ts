/**
 * Recognises audio and video containers from their first bytes (magic numbers). The file name and the
 * Content-Type a client sends are never trusted: a text file named x.mp3 is still text.
 */
export interface MediaType {
  mime: string;
  /** Lower-case, without the dot. */
  extension: string;
}

/** How many leading bytes detectMediaType looks at. */
export const MEDIA_SNIFF_BYTES = 64;

const ascii = (buf: Uint8Array, offset: number, text: string) =>
  buf.length >= offset + text.length && [...text].every((ch, i) => buf[offset + i] === ch.charCodeAt(0));

export function detectMediaType(head: Uint8Array): MediaType | null {
  if (ascii(head, 0, 'ID3')) return { mime: 'audio/mpeg', extension: 'mp3' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return { mime: 'audio/wav', extension: 'wav' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'AVI ')) return { mime: 'video/x-msvideo', extension: 'avi' };
  if (ascii(head, 4, 'ftyp')) return isoBmffType(head);
  if (ascii(head, 0, 'OggS')) return { mime: 'audio/ogg', extension: 'ogg' };
  if (ascii(head, 0, 'fLaC')) return { mime: 'audio/flac', extension: 'flac' };
  if (ascii(head, 0, '#!AMR')) return { mime: 'audio/amr', extension: 'amr' };
  if (ascii(head, 0, 'FORM') && (ascii(head, 8, 'AIFF') || ascii(head, 8, 'AIFC'))) return { mime: 'audio/aiff', extension: 'aiff' };
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return matroskaType(head);
  if (head[0] === 0x30 && head[1] === 0x26 && head[2] === 0xb2 && head[3] === 0x75) return { mime: 'video/x-ms-asf', extension: 'asf' };
  if (head[0] === 0xff && head.length >= 4) return frameSyncType(head);
  return null;
}

/** MP4 family: the major brand after `ftyp` tells audio-only M4A, QuickTime and 3GPP from plain MP4. */
function isoBmffType(head: Uint8Array): MediaType {
  const brand = String.fromCharCode(...head.slice(8, 12));
  if (brand.startsWith('M4A') || brand.startsWith('M4B')) return { mime: 'audio/mp4', extension: 'm4a' };
  if (brand === 'qt  ') return { mime: 'video/quicktime', extension: 'mov' };
  if (brand.startsWith('3g')) return { mime: 'video/3gpp', extension: '3gp' };
  return { mime: 'video/mp4', extension: 'mp4' };
}

/** EBML header: the DocType names WebM or Matroska. */
function matroskaType(head: Uint8Array): MediaType {
  const text = String.fromCharCode(...head.slice(0, MEDIA_SNIFF_BYTES));
  if (text.includes('webm')) return { mime: 'video/webm', extension: 'webm' };
  return { mime: 'video/x-matroska', extension: 'mkv' };
}

/**
 * An MPEG audio frame header (MP3 without ID3 tag) or an AAC ADTS header. Both start with 11–12 set bits;
 * the remaining fields are checked too, so random binary that happens to begin with 0xFF is refused.
 */
function frameSyncType(head: Uint8Array): MediaType | null {
  const b1 = head[1];
  if ((b1 & 0xf6) === 0xf0) {
    // ADTS: 12 sync bits, layer always 00; sampling index 13–15 is reserved.
    const samplingIndex = (head[2] >> 2) & 0x0f;
    return samplingIndex < 13 ? { mime: 'audio/aac', extension: 'aac' } : null;
  }
  if ((b1 & 0xe0) !== 0xe0) return null;
  const version = (b1 >> 3) & 0x03;
  const layer = (b1 >> 1) & 0x03;
  const bitrate = (head[2] >> 4) & 0x0f;
  const sampleRate = (head[2] >> 2) & 0x03;
  if (version === 0x01 || layer === 0x00 || bitrate === 0x0f || sampleRate === 0x03) return null;
  return { mime: 'audio/mpeg', extension: 'mp3' };
}
