import { DEMO_USERS } from '#contract/demo';

import type { DemoUser } from './demo-user-store';

/**
 * The 42 users the demo backend starts with, ids 1 to 42 in order: `DEMO_USERS` of `#contract/demo`,
 * the same the reference server seeds, each with a unique address under `example.com`.
 *
 * @usageNotes
 * ```ts
 * const store = new DemoUserStore(seedUsers());
 * ```
 */
export function seedUsers(): DemoUser[] {
  return DEMO_USERS.map(({ name, email }, index) => ({ id: index + 1, name, email }));
}
