-- E-mail addresses are unique by their key (projects/contract/src/email-key.ts): the address in Unicode
-- compatibility form (NFKC) and case-folded, so NFC "josé" and NFD "jose" + U+0301, or fullwidth
-- letters, are one address. The server computes the key of every address it writes; PostgreSQL's
-- lower() only folds what the database's collation knows (ASCII alone under C), so it cannot.

ALTER TABLE users ADD COLUMN email_key text;

-- The rows of before: their key as close as SQL comes (exact for ASCII addresses, which every row
-- the demo seeds is). Rows that now share a key (the same address written twice in different
-- Unicode forms) all stay: the oldest keeps the key, the others get it suffixed with "#" and
-- their id, which no address can end in, so the new index holds and nobody's user is lost.
WITH keyed AS (
  SELECT id, lower(normalize(email, NFKC)) AS email_key,
    row_number() OVER (PARTITION BY lower(normalize(email, NFKC)) ORDER BY id) AS rank
  FROM users
)
UPDATE users SET email_key = CASE WHEN keyed.rank = 1 THEN keyed.email_key ELSE keyed.email_key || '#' || users.id END
FROM keyed WHERE keyed.id = users.id;

ALTER TABLE users ALTER COLUMN email_key SET NOT NULL;
DROP INDEX users_email_unique;
CREATE UNIQUE INDEX users_email_key_unique ON users (email_key);
