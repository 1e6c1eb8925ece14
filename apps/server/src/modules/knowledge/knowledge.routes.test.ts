import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { multipartPayload } from '../../test/multipart.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);
const FIXTURES = path.join(import.meta.dirname, '../../test/fixtures/knowledge');

async function createCollection(name = 'Product facts'): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/api/admin/knowledge', as: admin.cookie, payload: { name } });
  expect(res.statusCode).toBe(201);
  return res.json().id;
}

async function upload(collectionId: number, file: string) {
  const data = await readFile(path.join(FIXTURES, file));
  const { payload, headers } = multipartPayload([{ name: file, data, field: 'file' }]);
  return t.request({ method: 'POST', url: `/api/admin/knowledge/${collectionId}/sources`, as: admin.cookie, payload, headers });
}

const sources = async (id: number) =>
  (await t.request({ method: 'GET', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie })).json();
const search = async (id: number, query: string) =>
  t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/search`, as: admin.cookie, payload: { query } });

describe('knowledge collections and sources', () => {
  it('creates and lists collections; FAQ entries are queued, ingested by the job and searchable', async () => {
    const id = await createCollection();
    const faq = await t.request({
      method: 'POST',
      url: `/api/admin/knowledge/${id}/sources`,
      as: admin.cookie,
      payload: { type: 'faq', question: 'Does the Pro plan include WhatsApp?', answer: 'Yes, Pro includes WhatsApp and Messenger.' },
    });
    expect(faq.statusCode).toBe(201);
    expect(await sources(id)).toMatchObject([{ id: faq.json().id, type: 'faq', status: 'queued', chunks: 0 }]);

    await t.ctx.jobs.drain();
    expect(await sources(id)).toMatchObject([{ id: faq.json().id, status: 'ready', chunks: 1, items: 1 }]);
    const list = await t.request({ method: 'GET', url: '/api/admin/knowledge', as: admin.cookie });
    expect(list.json()).toContainEqual(expect.objectContaining({ id, name: 'Product facts', sources: 1, chunks: 1 }));

    const res = await search(id, 'whatsapp on pro?');
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([
      expect.objectContaining({ sourceId: faq.json().id, title: 'Does the Pro plan include WhatsApp?', text: expect.stringContaining('Pro includes WhatsApp') }),
    ]);
    expect(res.json().results[0].score).toBeGreaterThan(0);
    expect((await search(id, 'refund policy')).json().results).toEqual([]);
  });

  it('reads every document format with its library and ranks the relevant passage first', async () => {
    const id = await createCollection('Documents');
    const files = ['pricing.pdf', 'hours.docx', 'faq.md', 'warranty.txt', 'page.html', 'prices.csv'];
    const ids: Record<string, number> = {};
    for (const file of files) {
      const res = await upload(id, file);
      expect(res.statusCode, file).toBe(201);
      ids[file] = res.json().id;
    }
    await t.ctx.jobs.drain();
    const listed = await sources(id);
    for (const source of listed) expect(source, JSON.stringify(source)).toMatchObject({ status: 'ready', type: 'document' });
    // A CSV row is one fact: two rows, two chunks.
    expect(listed.find((s: { id: number }) => s.id === ids['prices.csv'])).toMatchObject({ items: 2, chunks: 2 });

    const best = async (query: string) => (await search(id, query)).json().results[0];
    expect(await best('installation cost')).toMatchObject({ sourceId: ids['pricing.pdf'], text: expect.stringContaining('480 euros') });
    expect(await best('opening hours saturday')).toMatchObject({ sourceId: ids['hours.docx'] });
    expect(await best('does pro include whatsapp')).toMatchObject({ sourceId: ids['faq.md'] });
    expect(await best('compressor warranty')).toMatchObject({ sourceId: ids['warranty.txt'] });
    expect(await best('wall charger price')).toMatchObject({ sourceId: ids['prices.csv'], text: expect.stringContaining('350 euros') });
    const delivery = await best('delivery to belgium');
    expect(delivery).toMatchObject({ sourceId: ids['page.html'], title: 'Delivery times' });
    // Readability keeps the article and drops menus and footers.
    expect(delivery.text).not.toContain('Copyright footer');
    expect(delivery.text).not.toContain('Shop menu item');
  });

  it('marks an unreadable document failed with the reason, refreshes and deletes sources with their chunks', async () => {
    const id = await createCollection('Broken');
    const { payload, headers } = multipartPayload([{ name: 'broken.pdf', data: Buffer.from('not a pdf at all'), field: 'file' }]);
    const broken = await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie, payload, headers });
    const good = await upload(id, 'warranty.txt');
    await t.ctx.jobs.drain();
    expect((await sources(id))[0]).toMatchObject({ id: broken.json().id, status: 'failed', error: expect.stringMatching(/PDF could not be read/) });

    const refresh = await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources/${good.json().id}/refresh`, as: admin.cookie });
    expect(refresh.statusCode).toBe(200);
    expect((await sources(id))[1]).toMatchObject({ status: 'queued' });
    await t.ctx.jobs.drain();
    expect((await sources(id))[1]).toMatchObject({ status: 'ready', chunks: 1 });

    const del = await t.request({ method: 'DELETE', url: `/api/admin/knowledge/${id}/sources/${good.json().id}`, as: admin.cookie });
    expect(del.statusCode).toBe(200);
    expect((await search(id, 'compressor warranty')).json().results).toEqual([]);
    expect((await t.request({ method: 'DELETE', url: `/api/admin/knowledge/${id}/sources/${good.json().id}`, as: admin.cookie })).statusCode).toBe(404);
  });

  it('answers 400 for bad bodies and unsupported files, 404 for unknown collections', async () => {
    const id = await createCollection('Checks');
    const post = (payload: unknown) => t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie, payload: payload as object });
    for (const payload of [{ type: 'faq', question: '', answer: 'x' }, { type: 'website', url: 'ftp://example.com' }, { type: 'nope' }, {}]) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBeTruthy();
    }
    const exe = multipartPayload([{ name: 'tool.exe', data: Buffer.from('MZ'), field: 'file' }]);
    const refused = await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie, ...exe });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatch(/PDF, DOCX/);
    expect((await t.request({ method: 'POST', url: '/api/admin/knowledge', as: admin.cookie, payload: { name: ' ' } })).statusCode).toBe(400);
    expect((await search(id, '')).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/api/admin/knowledge/999999/sources', as: admin.cookie })).statusCode).toBe(404);
    expect((await search(999999, 'x')).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: '/api/admin/knowledge/999999/sources', as: admin.cookie, payload: { type: 'faq', question: 'q', answer: 'a' } })).statusCode).toBe(404);
  });

  it('imports FAQ entries from a CSV (question, answer), skipping incomplete rows; refuses a CSV without those columns', async () => {
    const id = await createCollection('FAQ import');
    const csv = 'Answer,Question,Note\n"Yes, WhatsApp is in Pro.",Does Pro include WhatsApp?,x\n,No answer here,\n"14 days, no questions asked.",What is the refund period?,\n';
    const post = (data: string) => {
      const { payload, headers } = multipartPayload([{ name: 'faq.csv', data: Buffer.from(data), field: 'file' }]);
      return t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/faq-import`, as: admin.cookie, payload, headers });
    };
    const res = await post(csv);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ created: 2, skipped: 1 });
    await t.ctx.jobs.drain();
    expect(await sources(id)).toMatchObject([
      { type: 'faq', title: 'Does Pro include WhatsApp?', status: 'ready', chunks: 1 },
      { type: 'faq', title: 'What is the refund period?', status: 'ready', chunks: 1 },
    ]);
    expect((await search(id, 'refund period')).json().results[0].text).toContain('14 days');

    const wrong = await post('q,a\nx,y\n');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/columns "question" and "answer"/);
    const json = await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/faq-import`, as: admin.cookie, payload: {} });
    expect(json.statusCode).toBe(400);
    const { payload, headers } = multipartPayload([{ name: 'faq.csv', data: Buffer.from(csv), field: 'file' }]);
    expect((await t.request({ method: 'POST', url: '/api/admin/knowledge/999999/faq-import', as: admin.cookie, payload, headers })).statusCode).toBe(404);
  });

  it('is ADMIN-only: 401 anonymous, 403 NORMAL', async () => {
    expect((await t.request({ method: 'GET', url: '/api/admin/knowledge' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/admin/knowledge', as: normal.cookie })).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: '/api/admin/knowledge/1/search', as: normal.cookie, payload: { query: 'x' } })).statusCode).toBe(403);
  });
});
