/** Gives the name under which to write a symbol of a module (and arranges its import). */
export type SymbolRef = (symbol: string, module: string) => string;
