import { and, inArray, isNull } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { parseCsvWithHeader } from '../../lib/csv.ts';
import { CONSENT_IMPORT_MAX_ROWS, type ConsentImportResult } from '@sales-agent/shared/schemas/compliance';
import type { AppContext } from '../../context.ts';
import { consentRecords, doNotContact } from '../../db/schema/index.ts';
import { badRequest } from '../../lib/errors.ts';

interface Skipped {
  row: number;
  reason: string;
}
interface OptInRow {
  row: number;
  address: string;
  note: string;
}

const NOTE_MAX = 2000;
/** Rows per INSERT and per opt-out lookup: well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000;

/**
 * WhatsApp opt-ins given elsewhere (a web form, a signed paper list), recorded by an ADMIN from a CSV (issue 23
 * item 3): one consent record per usable row, source `import`, the row's `note` or else the file's name, so the
 * audit says where each came from. Rows are skipped with a reason, never half-recorded.
 */
export async function importConsents(ctx: AppContext, userId: number, file: { name: string; text: string }): Promise<ConsentImportResult> {
  const { rows, skipped } = readOptInCsv(file.text, `Imported from ${file.name || 'a CSV file'}`);
  // An import does not undo an opt-out: the person's STOP is newer news than a list gathered before it.
  const optedOut = new Set<string>();
  for (let i = 0; i < rows.length; i += CHUNK) {
    const addresses = rows.slice(i, i + CHUNK).map((r) => r.address);
    const found = await ctx.db
      .select({ address: doNotContact.address })
      .from(doNotContact)
      .where(and(inArray(doNotContact.address, addresses), isNull(doNotContact.clearedAt)));
    for (const f of found) optedOut.add(f.address);
  }
  const recorded = rows.filter((r) => {
    if (!optedOut.has(r.address)) return true;
    skipped.push({ row: r.row, reason: 'this number opted out; an import does not undo an opt-out (the person writes START, or a person clears it with a note)' });
    return false;
  });
  await ctx.db.transaction(async (tx) => {
    for (let i = 0; i < recorded.length; i += CHUNK) {
      const values = recorded.slice(i, i + CHUNK).map((r) => ({ address: r.address, channel: 'whatsapp', granted: true, source: 'import', note: r.note, byUserId: userId }));
      await tx.insert(consentRecords).values(values);
    }
  });
  return { imported: recorded.length, skipped: skipped.sort((a, b) => a.row - b.row) };
}

/**
 * The rows of the CSV (Papa Parse, as the campaign and FAQ imports): a header with `phone` (any case) and an
 * optional `note`. 400 CONSENT_CSV_INVALID for a file that is no such CSV; a row whose phone is no valid
 * number with its country code, or repeats an earlier row, is skipped (`row` 1 is the first after the header).
 */
export function readOptInCsv(csv: string, defaultNote: string): { rows: OptInRow[]; skipped: Skipped[] } {
  const parsed = parseCsvWithHeader(csv, { lowerCaseHeaders: true });
  const headers = parsed.meta.fields ?? [];
  if (!headers.includes('phone')) throw badRequest('The CSV needs a header row with a "phone" column (and may have a "note" column).', 'CONSENT_CSV_INVALID');
  const broken = parsed.errors.find((e) => e.type === 'Quotes');
  if (broken) throw badRequest(`The CSV cannot be read: ${broken.message.toLowerCase()} (row ${(broken.row ?? 0) + 1}).`, 'CONSENT_CSV_INVALID');
  if (parsed.data.length > CONSENT_IMPORT_MAX_ROWS) {
    throw badRequest(`The CSV has ${parsed.data.length} rows; at most ${CONSENT_IMPORT_MAX_ROWS} are imported at once.`, 'CONSENT_CSV_INVALID');
  }
  const seen = new Set<string>();
  const rows: OptInRow[] = [];
  const skipped: Skipped[] = [];
  parsed.data.forEach((data, index) => {
    const row = index + 1;
    const raw = (data.phone ?? '').trim();
    const note = (data.note ?? '').trim();
    // No default country: a list without country codes would be guessed wrong, so the number must carry its own.
    const phone = raw ? parsePhoneNumberFromString(raw.replace(/^00/, '+')) : undefined;
    if (!raw) skipped.push({ row, reason: 'no phone number' });
    else if (!phone?.isValid()) skipped.push({ row, reason: `"${raw.slice(0, 40)}" is not a valid phone number with its country code (e.g. +14155550123)` });
    else if (seen.has(phone.number)) skipped.push({ row, reason: `${phone.number} appears earlier in the file` });
    else if (note.length > NOTE_MAX) skipped.push({ row, reason: `the note is longer than ${NOTE_MAX} characters` });
    else {
      seen.add(phone.number);
      rows.push({ row, address: phone.number, note: note || defaultNote });
    }
  });
  if (!rows.length && !skipped.length) throw badRequest('The CSV has no rows under its header.', 'CONSENT_CSV_INVALID');
  return { rows, skipped };
}
