-- Rate limits kept where every instance sees them: behind a load balancer, counts each instance kept
-- in its own memory allowed N instances N times the attempts.

-- The per-address (and per-session) limits of login, refresh and logout: one fixed window per key,
-- counted by src/create-rate-limit-store.ts. A row whose window has ended counts from 1 again on its
-- next hit; the login's periodic cleanup deletes the ones left over.
CREATE TABLE rate_limit_windows (
  -- the route and the client's key (an address, or a session): '/auth/login|203.0.113.7'
  key text PRIMARY KEY,
  hits integer NOT NULL CHECK (hits > 0),
  ends_at timestamptz NOT NULL
);
CREATE INDEX rate_limit_windows_ends_at ON rate_limit_windows (ends_at);

-- Sign-in attempts per account (per trusted device for a device that signed in to it before), with
-- growing delays: after a few free attempts, each one waits twice as long as the last, up to a cap.
-- A success deletes the row; a row untouched for a day is forgotten.
CREATE TABLE login_attempts (
  -- 'account:' || sha256(username) in hex (attacker-chosen names are never stored as typed), or
  -- 'device:' || the trusted device's id
  key text PRIMARY KEY CHECK (key ~ '^(account|device):[0-9A-Za-z_-]{16,64}$'),
  attempts integer NOT NULL CHECK (attempts > 0),
  -- no attempt before this time is even checked: 429 with Retry-After
  blocked_until timestamptz NOT NULL,
  last_attempt_at timestamptz NOT NULL
);
CREATE INDEX login_attempts_last_attempt_at ON login_attempts (last_attempt_at);
