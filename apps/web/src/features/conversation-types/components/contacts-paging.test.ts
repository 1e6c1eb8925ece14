import { describe, expect, it } from 'vitest';
import { currentCursor, firstPage, hasNextPage, hasPreviousPage, nextPage, pageCount, pageNumber, previousPage } from './contacts-paging.ts';

describe('contacts paging (spec §4, §5)', () => {
  const meta = (startAfter: number | null, startAfterId: string | null, total = 25) => ({ total, startAfter, startAfterId });

  it('starts on page 1 with no cursor, Previous disabled', () => {
    const paging = firstPage();
    expect(pageNumber(paging)).toBe(1);
    expect(currentCursor(paging)).toBeNull();
    expect(hasPreviousPage(paging)).toBe(false);
  });

  it('Next uses the answer\'s cursor; Previous goes back to the stored earlier cursor', () => {
    const page2 = nextPage(firstPage(), meta(100, 'opp-10'));
    expect(currentCursor(page2)).toEqual({ startAfter: '100', startAfterId: 'opp-10' });
    const page3 = nextPage(page2, meta(200, 'opp-20'));
    expect(pageNumber(page3)).toBe(3);
    const back = previousPage(page3);
    expect(back).toEqual(page2);
    expect(previousPage(previousPage(back))).toEqual(firstPage());
  });

  it('disables Next on the last page: no cursor in the answer, or the total says so', () => {
    expect(hasNextPage(firstPage(), meta(100, 'opp-10'), 10)).toBe(true);
    expect(hasNextPage(firstPage(), meta(null, null), 10)).toBe(false);
    expect(hasNextPage(firstPage(), meta(100, 'opp-10', 10), 10)).toBe(false);
    expect(hasNextPage(firstPage(), undefined, 10)).toBe(false);
  });

  it("counts pages for 'N of M'", () => {
    expect(pageCount(25, 10)).toBe(3);
    expect(pageCount(25, 20)).toBe(2);
    expect(pageCount(0, 10)).toBe(1);
  });
});
