/** Target passage length: long enough to carry a fact with its context, short enough to fit several in a prompt. */
export const CHUNK_CHARS = 900;

/**
 * Splits text into passages on paragraph boundaries (then sentences, then hard cuts), so a passage rarely
 * breaks a sentence. Whitespace runs are collapsed; empty input gives no passages.
 */
export function chunkText(text: string, max = CHUNK_CHARS): string[] {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const pieces = paragraphs.flatMap((p) => (p.length <= max ? [p] : splitLong(p, max)));
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current && current.length + 1 + piece.length > max) {
      chunks.push(current);
      current = piece;
    } else current = current ? `${current}\n${piece}` : piece;
  }
  if (current) chunks.push(current);
  return chunks;
}

function splitLong(paragraph: string, max: number): string[] {
  const sentences = paragraph.match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [paragraph];
  const out: string[] = [];
  let current = '';
  for (const raw of sentences) {
    const sentence = raw.trim();
    for (let i = 0; i < sentence.length; i += max) {
      const part = sentence.slice(i, i + max);
      if (current && current.length + 1 + part.length > max) {
        out.push(current);
        current = part;
      } else current = current ? `${current} ${part}` : part;
    }
  }
  if (current) out.push(current);
  return out;
}
