-- The reference server's schema. Applied in file-name order by src/migrate.ts, identically on
-- PGlite and PostgreSQL; never edit a migration that has shipped, add the next one.

-- Who may sign in. Separate from `users`, the resource the API manages.
CREATE TABLE accounts (
  username text PRIMARY KEY,
  -- scrypt$N$r$p$salt$hash (see src/password-hash.ts); never the password itself
  password_hash text NOT NULL,
  -- admin: may create, change and delete users; viewer: may only read them
  role text NOT NULL CHECK (role IN ('admin', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One family per login: every refresh token rotated from that login's token belongs to it. Reuse of
-- a rotated token, or a logout, revokes the whole family.
CREATE TABLE refresh_token_families (
  id text PRIMARY KEY,
  username text NOT NULL REFERENCES accounts (username) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  -- the end of the session: rotation does not extend it
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text CHECK (revoked_reason IN ('logout', 'reuse'))
);
CREATE INDEX refresh_token_families_expires_at ON refresh_token_families (expires_at);

-- Refresh tokens are stored only as SHA-256 hashes (hex): a copy of this table lets nobody refresh.
CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  family_id text NOT NULL REFERENCES refresh_token_families (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  -- set when the token is rotated: a token is single-use
  used_at timestamptz
);
CREATE INDEX refresh_tokens_family_id ON refresh_tokens (family_id);

-- The users API's resource. Ids are never reused (identity), e-mail addresses are unique ignoring case.
CREATE TABLE users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_unique ON users (lower(email));
