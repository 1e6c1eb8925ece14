import type { TestApp } from './build-test-app.ts';

/** A knowledge collection with FAQ entries, ingested (issue 21 tests). */
export async function buildCollection(t: TestApp, cookie: string, faqs: [string, string][], name = 'Facts'): Promise<number> {
  const { id } = (await t.request({ method: 'POST', url: '/api/admin/knowledge', as: cookie, payload: { name } })).json();
  for (const [question, answer] of faqs) {
    await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: cookie, payload: { type: 'faq', question, answer } });
  }
  await t.ctx.jobs.drain();
  return id;
}

/** Attaches collections to a type through its create-edit route, keeping its title and prompts. */
export async function attachCollections(t: TestApp, cookie: string, typeId: number, knowledgeCollectionIds: number[]) {
  const detail = (await t.request({ method: 'GET', url: `/api/conversation-type/${typeId}`, as: cookie })).json();
  return t.request({
    method: 'POST',
    url: '/api/admin/conversation-type/create-edit',
    as: cookie,
    payload: { id: typeId, title: detail.title, rolePrompt: detail.rolePrompt, errorPrompt: detail.errorPrompt, knowledgeCollectionIds },
  });
}
