/** Enough names for five pages of ten, so paging has something to show. */
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
 * The 42 users both backends start with, in id order (ids 1 to 42 on a fresh database or a fresh
 * in-memory store), each with a unique address under `example.com`, a domain reserved for examples,
 * so no real person gets mail.
 *
 * @example
 * DEMO_USERS[0]; // { name: 'Ada Lovelace', email: 'ada.lovelace@example.com' }
 */
export const DEMO_USERS: readonly { readonly name: string; readonly email: string }[] = NAMES.map((name) => ({
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
