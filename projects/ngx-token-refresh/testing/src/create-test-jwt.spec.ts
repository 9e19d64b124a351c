import { createTestJwt } from 'ngx-token-refresh/testing';

describe('createTestJwt', () => {
  it('builds a header.payload.signature token whose payload decodes to the claims', () => {
    const token = createTestJwt({ sub: 'ada', exp: 2_000_000_000, role: 'admin', name: 'Ada Lovelace ✓' });

    const [header, payload, signature] = token.split('.');

    expect(decode(header)).toEqual({ alg: 'none', typ: 'JWT' });
    expect(decode(payload)).toEqual(
      expect.objectContaining({ sub: 'ada', exp: 2_000_000_000, role: 'admin', name: 'Ada Lovelace ✓' }),
    );
    expect(signature).toBeTruthy();
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('defaults to a token issued now that expires in 15 minutes', () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = decode(createTestJwt().split('.')[1]) as { sub: string; iat: number; exp: number };

    expect(claims.sub).toBe('test-user');
    expect(Math.abs(claims.iat - now)).toBeLessThanOrEqual(1);
    expect(claims.exp - claims.iat).toBe(15 * 60);
  });
});

function decode(part: string | undefined): unknown {
  const base64 = (part ?? '').replace(/-/g, '+').replace(/_/g, '/');
  return JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
}
