-- DPoP (RFC 9449), used when the server runs with DPOP=allowed or DPOP=required.

-- The key a session is bound to: the RFC 7638 thumbprint (SHA-256, base64url) of the public key whose
-- proof came with the login. A refresh of a bound family must prove the same key; null: a session
-- without a key (a login without a proof, or from before this migration).
ALTER TABLE refresh_token_families ADD COLUMN jkt text CHECK (jkt IS NULL OR jkt ~ '^[A-Za-z0-9_-]{43}$');

-- Proofs already accepted, so that none is accepted twice (its `jti` within the time it could still be
-- accepted), by any instance sharing the database: the check is one INSERT ... ON CONFLICT DO NOTHING.
-- Unlogged: a proof is written on every API call and lives for minutes, so it is written without the
-- write-ahead log (no flush per call); a crash of PostgreSQL empties the table, which reopens replay
-- only for proofs made in the few minutes before it (see the README's DPoP section).
CREATE UNLOGGED TABLE dpop_proofs (
  -- SHA-256 (hex) of the key's thumbprint, a dot and the proof's jti: nothing the client chose is stored as sent
  key text PRIMARY KEY CHECK (key ~ '^[0-9a-f]{64}$'),
  -- when no instance would accept the proof any more (its nonce expired); housekeeping deletes it then
  expires_at timestamptz NOT NULL
);
CREATE INDEX dpop_proofs_expires_at ON dpop_proofs (expires_at);
