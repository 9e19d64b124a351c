/** What the showcase's BFF server is told by its environment; see {@link readBffServerSettings}. */
export interface BffServerSettings {
  /** Where it listens. */
  readonly host: string;
  readonly port: number;
  /** The origin browsers use (the BFF's `baseUrl`): its own, or a load balancer's in front of several. */
  readonly origin: string;
  /** The OpenID Provider, and the confidential client registered there. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** PostgreSQL for the sessions, shared by every instance; `null`: in this process's memory. */
  readonly databaseUrl: string | null;
  /** The built app. */
  readonly browserDir: string;
  /** This instance's name in its log lines, when there are several. */
  readonly name: string;
}

/**
 * Reads the settings of `serve-bff.ts` from `env`, or throws an `Error` naming the variable to set:
 *
 * | variable             | default                         |                                                   |
 * | -------------------- | ------------------------------- | ------------------------------------------------- |
 * | `PORT`, `HOST`       | `4200`, `127.0.0.1`             | where it listens                                  |
 * | `PUBLIC_URL`         | `http://<HOST>:<PORT>`          | the origin browsers use (a balancer's)            |
 * | `OIDC_ISSUER`        | required                        | the provider                                      |
 * | `OIDC_CLIENT_ID`     | `bff`                           | the client at the provider                        |
 * | `OIDC_CLIENT_SECRET` | required                        | its secret                                        |
 * | `DATABASE_URL`       | none: sessions in memory        | PostgreSQL, for several instances                 |
 * | `BROWSER_DIR`        | `dist/showcase-bff/browser`     | the `bff` build of the showcase                   |
 * | `INSTANCE_NAME`      | `bff`                           | this instance in log lines                        |
 */
export function readBffServerSettings(env: Readonly<Record<string, string | undefined>>): BffServerSettings {
  const port = Number(env['PORT'] || 4200);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`PORT is ${env['PORT']}: give a port number, such as 4200`);
  }
  const host = env['HOST'] || '127.0.0.1';
  const required = (name: string, example: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set: give ${example}`);
    return value;
  };
  return {
    host,
    port,
    origin: new URL(env['PUBLIC_URL'] || `http://${host}:${port}`).origin,
    issuer: required('OIDC_ISSUER', "the provider's issuer, such as http://localhost:4444"),
    clientId: env['OIDC_CLIENT_ID'] || 'bff',
    clientSecret: required('OIDC_CLIENT_SECRET', 'the secret of the client at the provider'),
    databaseUrl: env['DATABASE_URL'] || null,
    browserDir: env['BROWSER_DIR'] || 'dist/showcase-bff/browser',
    name: env['INSTANCE_NAME'] || 'bff',
  };
}
