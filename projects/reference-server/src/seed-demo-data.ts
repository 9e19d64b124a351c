import { DEMO_ACCOUNTS, DEMO_USERS } from '#contract/demo';

import { hashPassword } from './password-hash.js';
import type { Repository } from './repository.js';

/**
 * Creates the demo accounts (`ada`/`lovelace` admin, `alan`/`turing` viewer) and the 42 demo users
 * when the database has no account yet, i.e. on its first start. Whether it seeded.
 *
 * @example
 * if (config.seedDemoData) await seedDemoData(repository);
 */
export async function seedDemoData(repository: Repository): Promise<boolean> {
  const accounts = await Promise.all(
    DEMO_ACCOUNTS.map(async ({ username, password, role }) => ({
      username,
      role,
      passwordHash: await hashPassword(password),
    })),
  );
  return repository.seed(accounts, DEMO_USERS);
}
