/**
 * The knowledge check of a drafted reply (issue 21 "the checking step rejects a reply that states a price,
 * number, date or promise not supported by the retrieved passages or the prompts"). Deterministic, so it
 * works with the offline demo agent and costs no model call: every number the reply states (prices, counts,
 * percentages, days, times, years) must appear in what the draft was written from — the prompts, the
 * retrieved passages, the conversation and this turn's tool results. Promises without numbers are left to
 * the checking prompt, which gets the same passages.
 */

const NUMBER = /\d+(?:[.,'\u00a0\u202f]\d+)*/g;

/** A number as a comparable value: thousands separators dropped, a decimal comma read as a point. */
export function canonicalNumber(raw: string): string {
  let text = raw.replace(/[\u00a0\u202f']/g, '');
  if (/^\d{1,3}([.,]\d{3})+$/.test(text)) text = text.replace(/[.,]/g, '');
  else text = text.replace(',', '.');
  const value = Number(text);
  return Number.isFinite(value) ? String(value) : text;
}

/** Each number in `text`, canonical, together with the words it was written as. */
export function numbersIn(text: string): { raw: string; value: string }[] {
  return [...text.matchAll(NUMBER)].map((m) => ({ raw: m[0].trim(), value: canonicalNumber(m[0]) }));
}

/**
 * The numbers of `reply` found nowhere in `support` (as written, e.g. "480,00 €" matches "480 euros"); an
 * empty list means the reply states no unsupported number.
 */
export function unsupportedNumbers(reply: string, support: string[]): string[] {
  const known = new Set<string>();
  for (const text of support) {
    for (const n of numbersIn(text)) {
      known.add(n.value);
      // "1.200,50" also supports its parts.
      for (const part of n.raw.split(/[.,'\u00a0\u202f]/)) known.add(canonicalNumber(part));
    }
  }
  const missing = numbersIn(reply)
    .filter((n) => !known.has(n.value))
    .map((n) => n.raw);
  return [...new Set(missing)];
}

/** The guard's reason for a reply stating unsupported numbers, or null when it states none. */
export function groundingProblem(reply: string, support: string[]): string | null {
  const missing = unsupportedNumbers(reply, support);
  if (missing.length === 0) return null;
  return (
    `The reply states ${missing.map((m) => `"${m}"`).join(', ')}, which the knowledge base and the prompts do not ` +
    `support. Do not state it; say you will find out instead.`
  );
}
