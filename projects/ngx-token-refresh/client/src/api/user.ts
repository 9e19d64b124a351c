/** A user of the users API. */
export interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

/** The fields of a user the client sends: a {@link User} without its `id`. */
export type NewUser = Omit<User, 'id'>;

/** Where a page sits in the whole list. */
export interface Pagination {
  /** 1-based number of this page. */
  readonly currentPage: number;
  readonly pageSize: number;
  readonly totalPages: number;
  readonly totalItems: number;
}

/** One page of a list, as `UsersService.list` returns it whether the server paged or not. */
export interface Page<T> {
  readonly data: readonly T[];
  readonly pagination: Pagination;
}

/**
 * A resource the server created (201), with the address it gave it (its `Location` header, if any),
 * as `UsersService.createWithLocation` returns it.
 */
export interface CreatedResource<T> {
  readonly value: T;
  readonly location: string | null;
}
