import { describe, expect, it } from 'vitest';
import { knowledgeChunks, knowledgeCollections, knowledgeSources } from '../db/schema/index.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { lexicalSearch, WORD_PASSAGES } from './search.ts';

const t = useTestApp();

/** A collection whose passages are `texts`, in that order (ids ascending). */
async function collectionOf(texts: string[]): Promise<number> {
  const [collection] = await t.ctx.db.insert(knowledgeCollections).values({ name: 'many' }).returning();
  const [source] = await t.ctx.db.insert(knowledgeSources).values({ collectionId: collection.id, type: 'faq', title: 'faq', status: 'ready' }).returning();
  await t.ctx.db.insert(knowledgeChunks).values(texts.map((text, position) => ({ sourceId: source.id, collectionId: collection.id, position, text })));
  return collection.id;
}

describe('lexical search over many passages sharing common words (the capped candidates)', () => {
  // Three times more passages with each common word than a common word brings to the ranking, so the
  // relevant passage (written last) is outside the first ones the index returns for a common word.
  const filler = (i: number) => `Our widget ${i % 2 ? 'installation' : 'delivery'} service covers model ${i} with a warranty.`;
  const many = Array.from({ length: WORD_PASSAGES * 3 }, (_, i) => filler(i));

  it('ranks the one passage with the rare word first', async () => {
    const id = await collectionOf([...many, 'Widget installation in Norway costs 480 euros.']);
    const [best] = await lexicalSearch(t.ctx.db, [id], 'what does widget installation cost in norway?', 3);
    expect(best.text).toBe('Widget installation in Norway costs 480 euros.');
    // A long query (a turn's last messages): the latest words are looked up first.
    const earlier = Array.from({ length: 80 }, (_, i) => `earlier${i}`).join(' ');
    const [fromLong] = await lexicalSearch(t.ctx.db, [id], `${earlier}\nand installation in norway?`, 3);
    expect(fromLong.text).toBe('Widget installation in Norway costs 480 euros.');
  });

  it('ranks the one passage with every common word first when no word is rare', async () => {
    const id = await collectionOf([...many, 'The installation warranty covers delivery damage.']);
    const found = await lexicalSearch(t.ctx.db, [id], 'installation delivery warranty', 3);
    expect(found[0].text).toBe('The installation warranty covers delivery damage.');
    expect(found).toHaveLength(3);
  });

  it('finds nothing when no word matches, and ranks a small collection exactly', async () => {
    const id = await collectionOf(['Refunds within 14 days.', 'Refunds of a refund: refund refund.', 'Opening hours 9 to 5.']);
    expect(await lexicalSearch(t.ctx.db, [id], 'whatsapp pricing', 5)).toEqual([]);
    expect(await lexicalSearch(t.ctx.db, [id], 'the and of', 5)).toEqual([]);
    const found = await lexicalSearch(t.ctx.db, [id], 'refund', 5);
    expect(found.map((p) => p.text)).toEqual(['Refunds of a refund: refund refund.', 'Refunds within 14 days.']);
  });
});
