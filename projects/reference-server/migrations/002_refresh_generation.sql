-- Counter refresh tokens: one row per session instead of one per rotation. A refresh token is now
-- derived from its family's id and generation with a key only the server has (src/refresh-tokens.ts),
-- so nothing of it is stored, and rotating is counting.

-- The live generation: 0 at login, one more per rotation. Only ever grows.
ALTER TABLE refresh_token_families ADD COLUMN generation integer NOT NULL DEFAULT 0 CHECK (generation >= 0);
-- When the live generation was reached (null until the first rotation): the overlap window, in which
-- the predecessor gets the live token again, counts from here.
ALTER TABLE refresh_token_families ADD COLUMN rotated_at timestamptz;

-- The per-rotation hashes are gone, and with them every token of the old format: sessions of before
-- this migration cannot refresh any more, so their users sign in once more.
DROP TABLE refresh_tokens;
