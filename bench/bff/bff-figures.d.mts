/**
 * Every figure of `text` (the contents of bench/BFF-RESULTS.md) by key, as a README would write it; see
 * bff-figures.mjs for the keys. `postgres: false` leaves out the PostgreSQL figures. Throws when a figure
 * is missing.
 */
export declare function bffFigures(text: string, options?: { readonly postgres?: boolean }): [string, string][];
