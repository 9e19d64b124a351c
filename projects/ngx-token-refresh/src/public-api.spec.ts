/**
 * @jest-environment node
 */
// Server rendering imports the library where `window` and `document` do not exist; merely importing
// it must not reach for them (state is created per application, on first use).
const BROWSER_GLOBALS = ['window', 'document', 'location', 'navigator', 'sessionStorage', 'localStorage'];

describe('ngx-token-refresh entry points', () => {
  // Angular and RxJS load first (they are not under test), so only the library's own modules run
  // under the traps below.
  beforeAll(async () => {
    await Promise.all([
      import('@angular/core'),
      import('@angular/common/http'),
      import('@angular/router'),
      import('rxjs'),
    ]);
  });

  it.each(['ngx-token-refresh', 'ngx-token-refresh/testing', 'ngx-token-refresh/router'])(
    '%s can be imported without window or document',
    async (name) => {
      const touched: string[] = [];
      for (const global of BROWSER_GLOBALS) {
        Object.defineProperty(globalThis, global, {
          configurable: true,
          get: () => {
            touched.push(global);
            return undefined;
          },
        });
      }
      try {
        const entryPoint = (await import(name)) as Record<string, unknown>;
        expect(Object.keys(entryPoint).length).toBeGreaterThan(0);
        expect(touched).toEqual([]);
      } finally {
        for (const global of BROWSER_GLOBALS) {
          delete (globalThis as Record<string, unknown>)[global];
        }
      }
    },
  );
});
