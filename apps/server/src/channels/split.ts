/** A channel's text limit: Instagram counts UTF-8 bytes, the others characters (UTF-16 code units, as JS and the providers' counters do). */
export interface TextLimit {
  unit: 'bytes' | 'chars';
  max: number;
}

/** The end of a sentence (., !, ?, … possibly followed by closing quotes/brackets) followed by whitespace, or a line break. */
const SENTENCE_END = /[.!?…。！？]+["'”’)\]]*\s+|\n+/g;
const WHITESPACE = /\s+/g;

/**
 * Splits a reply into parts that each fit the channel's limit, in order: at the last sentence boundary that
 * fits, else at the last word boundary, else (one enormous "word", e.g. a URL) a hard cut — never inside a
 * surrogate pair, so no emoji is broken. Whitespace at the cuts is dropped; text that fits is one part.
 */
export function splitMessage(text: string, limit: TextLimit): string[] {
  if (limit.max < 4) throw new Error('limit too small');
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    if (measure(rest, limit.unit) <= limit.max) {
      parts.push(rest);
      break;
    }
    const window = rest.slice(0, fittingLength(rest, limit));
    const cut = lastBoundary(window, SENTENCE_END) ?? lastBoundary(window, WHITESPACE) ?? window.length;
    const part = rest.slice(0, cut).trimEnd();
    if (part) parts.push(part);
    rest = rest.slice(cut).trimStart();
  }
  return parts;
}

function measure(text: string, unit: TextLimit['unit']): number {
  return unit === 'bytes' ? Buffer.byteLength(text, 'utf8') : text.length;
}

/** The longest prefix length (in UTF-16 units) within the limit that ends on a whole code point. */
function fittingLength(text: string, limit: TextLimit): number {
  let end: number;
  if (limit.unit === 'chars') {
    end = Math.min(text.length, limit.max);
  } else {
    end = 0;
    let bytes = 0;
    for (const char of text) {
      const size = Buffer.byteLength(char, 'utf8');
      if (bytes + size > limit.max) break;
      bytes += size;
      end += char.length;
    }
  }
  // Never end between the two halves of a surrogate pair (an emoji, many CJK extension characters).
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return end;
}

/** Where the text may be cut after the last match of `boundary` (the end of that match), or null. */
function lastBoundary(window: string, boundary: RegExp): number | null {
  let found: number | null = null;
  boundary.lastIndex = 0;
  for (let match = boundary.exec(window); match; match = boundary.exec(window)) {
    // A cut at 0 would make an empty part: the boundary must come after some text.
    if (match.index > 0) found = match.index + match[0].length;
  }
  // The boundary's trailing whitespace may itself run to the end of the window; cutting there is fine.
  return found;
}
