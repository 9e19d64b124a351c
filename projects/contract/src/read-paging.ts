import type { ErrorDetail } from './error-detail.js';
import { parseWholeNumber } from './parse-whole-number.js';

/** The page size of a list call that gives `page` without `pageSize`. */
export const DEFAULT_PAGE_SIZE = 10;
/** The largest page a list call may ask for: a larger `pageSize` is a 400 with target `pageSize`. */
export const MAX_PAGE_SIZE = 100;

/** One page of a list: which one, and how long pages are. */
export interface PageRequest {
  /** From 1. */
  readonly currentPage: number;
  /** From 1 to {@link MAX_PAGE_SIZE}. */
  readonly pageSize: number;
}

/** The outcome of {@link readPaging}. */
export type PagingCheck =
  /** `page` is `null` when the call gave neither parameter: the answer is the plain array. */
  | { readonly ok: true; readonly page: PageRequest | null }
  | { readonly ok: false; readonly details: readonly ErrorDetail[] };

/**
 * The paging rules of the users list. `valuesOf(name)` returns every value the query has for `name`.
 * - neither `page` nor `pageSize`: no paging (`page: null`), the whole list as a plain array;
 * - either or both: page `page` (default 1) of `pageSize` users (default {@link DEFAULT_PAGE_SIZE});
 * - each must be given once, as a whole number from 1 (`parseWholeNumber`), `pageSize` at most
 *   {@link MAX_PAGE_SIZE}; every problem is one detail, so both parameters are judged at once.
 *
 * @example
 * const query = new URLSearchParams('page=2&pageSize=20');
 * readPaging((name) => query.getAll(name)); // { ok: true, page: { currentPage: 2, pageSize: 20 } }
 */
export function readPaging(valuesOf: (name: 'page' | 'pageSize') => readonly string[]): PagingCheck {
  const details: ErrorDetail[] = [];
  const read = (name: 'page' | 'pageSize'): number | undefined => {
    const values = valuesOf(name);
    if (values.length === 0) return undefined;
    const value = values.length === 1 ? parseWholeNumber(values[0] ?? '') : null;
    if (value !== null) return value;
    details.push({ target: name, message: values.length > 1 ? 'must be given once' : 'must be a whole number from 1' });
    return undefined;
  };
  const page = read('page');
  const pageSize = read('pageSize');
  if (pageSize !== undefined && pageSize > MAX_PAGE_SIZE) {
    details.push({ target: 'pageSize', message: `must be at most ${MAX_PAGE_SIZE}` });
  }
  if (details.length > 0) return { ok: false, details };
  if (page === undefined && pageSize === undefined) return { ok: true, page: null };
  return { ok: true, page: { currentPage: page ?? 1, pageSize: pageSize ?? DEFAULT_PAGE_SIZE } };
}

/** The `pagination` of the paged envelope `{ data, pagination }`. */
export interface Pagination {
  readonly currentPage: number;
  readonly pageSize: number;
  readonly totalPages: number;
  readonly totalItems: number;
}

/**
 * Where a page starts in a list of `totalItems`, and its `pagination`. A page past the end is an
 * empty page (`start >= totalItems`), not an error: the list may have shrunk since the last call.
 * `start` may pass 2^53 for absurd pages; compare it with `totalItems` before using it as an offset.
 *
 * @example
 * const { start, pagination } = locatePage({ currentPage: 2, pageSize: 10 }, 42); // start 10, 5 pages
 */
export function locatePage(page: PageRequest, totalItems: number): { start: number; pagination: Pagination } {
  const { currentPage, pageSize } = page;
  return {
    start: (currentPage - 1) * pageSize,
    pagination: { currentPage, pageSize, totalPages: Math.ceil(totalItems / pageSize), totalItems },
  };
}
