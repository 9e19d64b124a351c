import { locatePage, readPaging } from './read-paging';

describe('readPaging', () => {
  const read = (query: string) => {
    const params = new URLSearchParams(query);
    return readPaging((name) => params.getAll(name));
  };

  it('answers no paging without page and pageSize', () => {
    expect(read('')).toEqual({ ok: true, page: null });
  });

  it.each([
    ['page=2&pageSize=20', { currentPage: 2, pageSize: 20 }],
    ['page=3', { currentPage: 3, pageSize: 10 }],
    ['pageSize=100', { currentPage: 1, pageSize: 100 }],
  ])('reads %p', (query, page) => {
    expect(read(query)).toEqual({ ok: true, page });
  });

  it.each([
    ['page=0', 'page', 'must be a whole number from 1'],
    ['page=01', 'page', 'must be a whole number from 1'],
    ['page=1e3', 'page', 'must be a whole number from 1'],
    ['page=1234567890123456', 'page', 'must be a whole number from 1'],
    ['pageSize=-1', 'pageSize', 'must be a whole number from 1'],
    ['pageSize=101', 'pageSize', 'must be at most 100'],
    ['page=1&page=2', 'page', 'must be given once'],
  ])('refuses %p with a detail', (query, target, message) => {
    expect(read(query)).toEqual({ ok: false, details: [{ target, message }] });
  });

  it('judges both parameters at once', () => {
    expect(read('page=x&pageSize=0')).toEqual({
      ok: false,
      details: [
        { target: 'page', message: 'must be a whole number from 1' },
        { target: 'pageSize', message: 'must be a whole number from 1' },
      ],
    });
  });
});

describe('locatePage', () => {
  it('starts page 2 of 10 at 10, of 5 pages for 42 items', () => {
    expect(locatePage({ currentPage: 2, pageSize: 10 }, 42)).toEqual({
      start: 10,
      pagination: { currentPage: 2, pageSize: 10, totalPages: 5, totalItems: 42 },
    });
  });

  it('places a page past the end at or after totalItems (an empty page)', () => {
    expect(locatePage({ currentPage: 6, pageSize: 10 }, 42).start).toBeGreaterThanOrEqual(42);
  });
});
