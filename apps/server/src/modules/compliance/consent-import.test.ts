import { eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { consentRecords, doNotContact } from '../../db/schema/index.ts';
import { multipartPayload } from '../../test/multipart.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';

/**
 * WhatsApp opt-ins from a CSV (issue 23 item 3, docs/compliance.md "Importing opt-ins"): POST
 * /api/admin/compliance/consents/import, ADMIN only, multipart field "file" with a `phone` column and an
 * optional `note`; each usable row one consent record (source `import`), the others skipped with a reason.
 */
describe('POST /api/admin/compliance/consents/import', () => {
  const t = useTestApp();
  const admin = useUser(t, 'ADMIN');
  const normal = useUser(t);

  const upload = (csv: string, cookie?: string, name = 'optins.csv', field = 'file') => {
    const { payload, headers } = multipartPayload([{ name, type: 'text/csv', data: Buffer.from(csv), field }]);
    return t.request({ method: 'POST', url: '/api/admin/compliance/consents/import', as: cookie, payload, headers });
  };
  const recordsOf = (prefix: string) =>
    t.ctx.db.select().from(consentRecords).where(like(consentRecords.address, `${prefix}%`)).orderBy(consentRecords.id);

  it('records one opt-in per usable row (source "import", the row note or the file name) and says why the others were skipped', async () => {
    // +34 600 31x xxx: Spanish mobiles, valid for libphonenumber; one of them opted out before the import.
    await t.ctx.db.insert(doNotContact).values({ address: '+34600310005', channel: 'sms', how: 'keyword "STOP"' });
    const csv = [
      'Phone,Note,Name',
      '+34 600 310 001,Signed the paper list at the fair,Ana',
      '0034600310002,,Bea',
      '+34600310001,again,Ana',
      '12345,,Bad',
      ',,Nobody',
      '+34600310005,,Opted out',
      '"+34 600-310-003",Web form 3 May,Cai',
    ].join('\n');
    const res = await upload(csv, admin.cookie, 'fair-list.csv');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      imported: 3,
      skipped: [
        { row: 3, reason: '+34600310001 appears earlier in the file' },
        { row: 4, reason: expect.stringContaining('"12345" is not a valid phone number with its country code') },
        { row: 5, reason: 'no phone number' },
        { row: 6, reason: expect.stringContaining('this number opted out') },
      ],
    });
    expect(await recordsOf('+3460031')).toEqual([
      expect.objectContaining({ address: '+34600310001', channel: 'whatsapp', granted: true, source: 'import', note: 'Signed the paper list at the fair', byUserId: admin.id }),
      expect.objectContaining({ address: '+34600310002', granted: true, source: 'import', note: 'Imported from fair-list.csv' }),
      expect.objectContaining({ address: '+34600310003', granted: true, source: 'import', note: 'Web form 3 May' }),
    ]);

    // The audit lists them with who imported them.
    const audit = await t.request({ method: 'GET', url: '/api/admin/compliance/consents?address=3460031', as: admin.cookie });
    expect(audit.json()).toMatchObject({ total: 3, items: [{ address: '+34600310003', source: 'import', by: admin.email, granted: true }, {}, {}] });
  });

  it('400 CONSENT_CSV_INVALID without a phone column, for broken quotes or no rows; 400 without the file field', async () => {
    const noPhone = await upload('name,note\nAna,hello\n', admin.cookie);
    expect(noPhone.statusCode).toBe(400);
    expect(noPhone.json()).toEqual({ code: 'CONSENT_CSV_INVALID', error: 'The CSV needs a header row with a "phone" column (and may have a "note" column).' });
    const broken = await upload('phone,note\n+34600310020,"never closed\n', admin.cookie);
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ code: 'CONSENT_CSV_INVALID', error: expect.stringMatching(/^The CSV cannot be read/) });
    expect((await upload('phone\n', admin.cookie)).json()).toMatchObject({ code: 'CONSENT_CSV_INVALID', error: 'The CSV has no rows under its header.' });
    const wrongField = await upload('phone\n+34600310021\n', admin.cookie, 'x.csv', 'files');
    expect(wrongField.statusCode).toBe(400);
    const json = await t.request({ method: 'POST', url: '/api/admin/compliance/consents/import', as: admin.cookie, payload: { phone: '+34600310022' } });
    expect(json.statusCode).toBe(400);
    expect(await recordsOf('+3460031002')).toEqual([]);
  });

  it('is ADMIN-only: 401 anonymous, 403 NORMAL (nothing recorded)', async () => {
    expect((await upload('phone\n+34600310030\n')).statusCode).toBe(401);
    const refused = await upload('phone\n+34600310030\n', normal.cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect(await t.ctx.db.select().from(consentRecords).where(eq(consentRecords.address, '+34600310030'))).toEqual([]);
  });
});
