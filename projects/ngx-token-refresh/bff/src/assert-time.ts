import { BffError } from './bff-error';

/** Throws `InvalidSession` unless `value` is a time in milliseconds: NaN would make every comparison false. */
export function assertTime(value: unknown, where: string): asserts value is number {
  if (!Number.isFinite(value)) {
    throw new BffError('InvalidSession', `${where} got ${String(value)} instead of a time in ms (Date.now())`);
  }
}
