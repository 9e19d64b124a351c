import { readBffServerSettings } from './bff-server-settings';

describe('readBffServerSettings', () => {
  const required = { OIDC_ISSUER: 'http://localhost:4444', OIDC_CLIENT_SECRET: 's3cret' };

  it('fills in the defaults: 127.0.0.1:4200, the origin it listens on, client bff, sessions in memory', () => {
    expect(readBffServerSettings(required)).toEqual({
      host: '127.0.0.1',
      port: 4200,
      origin: 'http://127.0.0.1:4200',
      issuer: 'http://localhost:4444',
      clientId: 'bff',
      clientSecret: 's3cret',
      databaseUrl: null,
      browserDir: 'dist/showcase-bff/browser',
      name: 'bff',
    });
  });

  it("takes the balancer's origin as the public one, and PostgreSQL when DATABASE_URL is set", () => {
    const settings = readBffServerSettings({
      ...required,
      PORT: '4331',
      PUBLIC_URL: 'http://127.0.0.1:4330/',
      DATABASE_URL: 'postgres://bff@127.0.0.1/bff',
      INSTANCE_NAME: 'bff-1',
    });

    expect(settings).toMatchObject({
      port: 4331,
      origin: 'http://127.0.0.1:4330',
      databaseUrl: 'postgres://bff@127.0.0.1/bff',
      name: 'bff-1',
    });
  });

  it('names the variable to set when one is missing or wrong', () => {
    expect(() => readBffServerSettings({ OIDC_CLIENT_SECRET: 's3cret' })).toThrow(
      "OIDC_ISSUER is not set: give the provider's issuer, such as http://localhost:4444",
    );
    expect(() => readBffServerSettings({ OIDC_ISSUER: 'http://localhost:4444' })).toThrow(
      'OIDC_CLIENT_SECRET is not set',
    );
    expect(() => readBffServerSettings({ ...required, PORT: 'http' })).toThrow('PORT is http: give a port number');
  });
});
