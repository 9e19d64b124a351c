import type { Role, UserFields } from './repository.js';

/** The demo accounts, documented in the README and shown on the showcase's login page. */
export const DEMO_ACCOUNTS: readonly { readonly username: string; readonly password: string; readonly role: Role }[] = [
  { username: 'ada', password: 'lovelace', role: 'admin' },
  { username: 'alan', password: 'turing', role: 'viewer' },
];

/** Enough names for five pages of ten; the same 42 as the showcase's in-memory backend. */
const NAMES = [
  'Ada Lovelace',
  'Alan Turing',
  'Grace Hopper',
  'Katherine Johnson',
  'Edsger Dijkstra',
  'Barbara Liskov',
  'Donald Knuth',
  'Margaret Hamilton',
  'Tim Berners-Lee',
  'Frances Allen',
  'Dennis Ritchie',
  'Radia Perlman',
  'Ken Thompson',
  'Shafi Goldwasser',
  'John McCarthy',
  'Hedy Lamarr',
  'Niklaus Wirth',
  'Sophie Wilson',
  'Tony Hoare',
  'Mary Kenneth Keller',
  'Leslie Lamport',
  'Adele Goldberg',
  'Bjarne Stroustrup',
  'Annie Easley',
  'Guido van Rossum',
  'Evelyn Berezin',
  'Linus Torvalds',
  'Jean Sammet',
  'Yukihiro Matsumoto',
  'Lynn Conway',
  'Anders Hejlsberg',
  'Karen Spärck Jones',
  'James Gosling',
  'Joan Clarke',
  'Brendan Eich',
  'Carol Shaw',
  'Vint Cerf',
  'Hamid Karimi',
  'Ivan Sutherland',
  'Mary Jackson',
  'Whitfield Diffie',
  'Elena Petrova',
] as const;

/**
 * The 42 demo users (ids 1 to 42 on a fresh database), each with a unique address under
 * `example.com`, a domain reserved for examples.
 */
export const DEMO_USERS: readonly UserFields[] = NAMES.map((name) => ({
  name,
  email: `${toMailbox(name)}@example.com`,
}));

/** `Karen Spärck Jones` → `karen.sparck.jones`: plain ASCII, so every address is well-formed. */
function toMailbox(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.');
}
