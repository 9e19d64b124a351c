/** The protected API every contender calls. */
export const API_URL = '/api/items';

/** The refresh endpoint of every contender that refreshes. */
export const REFRESH_URL = '/auth/refresh';
