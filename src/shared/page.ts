// Pagination (rules §4): page >= 1, per_page 1..100 (default 50).
import { startOfDayAfter } from './days.ts';
export const PER_PAGE_DEFAULT = 50;
export const PER_PAGE_MAX = 100;

export interface PageRequest {
  page: number;
  per_page: number;
}

export interface Page<T> {
  items: T[];
  meta: { count: number; page: number; last: number };
}

export function pageRequest(query: { page?: number; per_page?: number }): PageRequest {
  return { page: query.page ?? 1, per_page: query.per_page ?? PER_PAGE_DEFAULT };
}

export function offsetOf(req: PageRequest): number {
  return (req.page - 1) * req.per_page;
}

export function lastPage(count: number, perPage: number): number {
  return Math.max(1, Math.ceil(count / perPage));
}

/** The meta of the page `req` asks for, of `count` records. */
export function pageMeta(count: number, req: PageRequest): Page<unknown>['meta'] {
  return { count, page: req.page, last: lastPage(count, req.per_page) };
}

export function toPage<T>(items: T[], count: number, req: PageRequest): Page<T> {
  return { items, meta: pageMeta(count, req) };
}

/** What an export keeps of a list (rules §13): created from / to (YYYY-MM-DD, inclusive), one status. */
export interface RowFilters {
  from?: string;
  to?: string;
  status?: string;
}

/** The first instant after the day `to` (YYYY-MM-DD): exports keep what was created before it. */
export function dayAfter(to: string): string {
  return startOfDayAfter(to);
}
