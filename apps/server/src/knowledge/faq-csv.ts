import { parseCsvWithHeader } from '../lib/csv.ts';

/** Most FAQ entries one CSV import creates. */
export const FAQ_IMPORT_MAX_ROWS = 5000;

export type FaqCsvResult = { ok: true; entries: { question: string; answer: string }[]; skipped: number } | { ok: false; error: string };

/**
 * Reads FAQ entries from a CSV with the columns `question` and `answer` (any case, any order, other columns
 * ignored) with Papa Parse. Rows with a blank question or answer are skipped and counted.
 */
export function parseFaqCsv(csv: string): FaqCsvResult {
  const parsed = parseCsvWithHeader(csv, { lowerCaseHeaders: true });
  const fields = parsed.meta.fields ?? [];
  const missing = ['question', 'answer'].filter((f) => !fields.includes(f));
  if (missing.length > 0) return { ok: false, error: `The CSV needs the columns "question" and "answer" (missing: ${missing.join(', ')}).` };
  if (parsed.data.length > FAQ_IMPORT_MAX_ROWS) return { ok: false, error: `The CSV has ${parsed.data.length} rows; at most ${FAQ_IMPORT_MAX_ROWS} are imported at once.` };
  const entries: { question: string; answer: string }[] = [];
  let skipped = 0;
  for (const row of parsed.data) {
    const question = (row.question ?? '').trim();
    const answer = (row.answer ?? '').trim();
    if (question && answer && question.length <= 2000 && answer.length <= 20_000) entries.push({ question, answer });
    else skipped++;
  }
  return { ok: true, entries, skipped };
}
