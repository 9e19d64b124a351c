/**
 * A root-relative path that stays on this origin without parsing: not `//` or `/\`, and no tab or
 * newline anywhere (the URL parser drops those, so `/<tab>/evil.example` becomes `//evil.example`).
 * The same rule as the browser entry points' (this entry cannot import Angular code).
 */
const SAME_ORIGIN_PATH = /^\/(?![/\\])[^\t\n\r]*$/;

/** Whether `value` is a path on this origin (see `SAME_ORIGIN_PATH`), judged without a URL parser. */
export const isSameOriginPath = (value: string): boolean => SAME_ORIGIN_PATH.test(value);
