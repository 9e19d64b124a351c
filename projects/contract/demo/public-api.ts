/*
 * The demo data both backends start with, imported as `#contract/demo`: the accounts and passwords
 * that the server's README and the showcase's login page show, and the 42 seed users. Fixtures, not
 * rules: nothing in `#contract` depends on them. Plain TypeScript, like the contract.
 */
export { DEMO_ACCOUNTS } from './demo-accounts.js';
export type { DemoAccount } from './demo-accounts.js';
export { DEMO_USERS } from './demo-users.js';
