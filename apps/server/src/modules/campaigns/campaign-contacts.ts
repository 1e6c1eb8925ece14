import { parseCsvWithHeader } from '../../lib/csv.ts';
import { CAMPAIGN_MAX_CONTACTS } from '@sales-agent/shared/schemas/campaigns';
import { isE164 } from '@sales-agent/shared/schemas/call';
import { phoneAddress } from '../../conversations/opt-out.ts';
import { badRequest } from '../../lib/errors.ts';

export interface CampaignContactRow {
  phone: string;
  name: string | null;
  fields: Record<string, string> | null;
}
export interface SkippedRow {
  row: number;
  phone: string;
  reason: string;
}

type RawContact = { phone: string; name?: string; fields?: Record<string, string | number | boolean | null> };

/**
 * A campaign's audience from a CSV (Papa Parse, as the FAQ import): a header row with `phone` (any case), an
 * optional `name`, every other column a field. Throws 400 CAMPAIGN_CSV_INVALID when there is no phone column.
 */
export function parseContactsCsv(csv: string): RawContact[] {
  const parsed = parseCsvWithHeader(csv);
  const headers = parsed.meta.fields ?? [];
  const phoneColumn = headers.find((h) => h.toLowerCase() === 'phone');
  if (!phoneColumn) throw badRequest('The CSV needs a "phone" column (and may have "name" and any other columns).', 'CAMPAIGN_CSV_INVALID');
  const nameColumn = headers.find((h) => h.toLowerCase() === 'name');
  const others = headers.filter((h) => h !== phoneColumn && h !== nameColumn && h !== '');
  if (parsed.data.length > CAMPAIGN_MAX_CONTACTS) {
    throw badRequest(`The CSV has ${parsed.data.length} rows; a campaign takes at most ${CAMPAIGN_MAX_CONTACTS}.`, 'CAMPAIGN_CSV_INVALID');
  }
  return parsed.data.map((row) => {
    const fields = Object.fromEntries(others.map((h) => [h, (row[h] ?? '').trim()]).filter(([, v]) => v !== ''));
    const name = nameColumn ? (row[nameColumn] ?? '').trim() : '';
    return { phone: (row[phoneColumn] ?? '').trim(), name: name || undefined, fields };
  });
}

/**
 * The contacts to store: each phone in E.164 (spaces, dashes and brackets dropped), once. Rows without a usable
 * number and repeats are skipped with a reason (the answer lists them, by their 1-based row).
 */
export function normaliseContacts(raw: RawContact[]): { rows: CampaignContactRow[]; skipped: SkippedRow[] } {
  const seen = new Set<string>();
  const rows: CampaignContactRow[] = [];
  const skipped: SkippedRow[] = [];
  raw.forEach((contact, index) => {
    const phone = phoneAddress(contact.phone);
    if (!phone || !isE164(phone)) {
      skipped.push({ row: index + 1, phone: contact.phone, reason: 'not a phone number in international format (e.g. +14155550123)' });
      return;
    }
    if (seen.has(phone)) {
      skipped.push({ row: index + 1, phone, reason: 'appears earlier in the list' });
      return;
    }
    seen.add(phone);
    const entries = Object.entries(contact.fields ?? {}).filter(([, v]) => v !== null && v !== '');
    rows.push({ phone, name: contact.name?.trim() || null, fields: entries.length ? Object.fromEntries(entries.map(([k, v]) => [k, String(v)])) : null });
  });
  return { rows, skipped };
}
