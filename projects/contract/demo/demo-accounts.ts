/** Who may sign in to a demo: `admin` may create, change and delete users; `viewer` may only read them. */
export interface DemoAccount {
  readonly username: string;
  readonly password: string;
  readonly role: 'admin' | 'viewer';
}

/**
 * The demo accounts of both backends, documented in the server's README and shown on the showcase's
 * login page: `ada`/`lovelace` (admin) and `alan`/`turing` (viewer).
 *
 * @example
 * const account = DEMO_ACCOUNTS.find((candidate) => candidate.username === 'ada');
 */
export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { username: 'ada', password: 'lovelace', role: 'admin' },
  { username: 'alan', password: 'turing', role: 'viewer' },
];
