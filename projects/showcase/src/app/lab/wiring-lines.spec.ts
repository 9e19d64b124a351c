import { loadAppConfigSource } from '../app-config-source';
import { wiringLines } from './wiring-lines';

describe('wiringLines', () => {
  it('shows the library’s import and the provider lines of the real app.config.ts, marking the library’s', async () => {
    const lines = wiringLines(await loadAppConfigSource(document.baseURI));
    const marked = lines.filter((line) => line.library).map((line) => line.text.trim());

    expect(marked).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^import \{ .*provideAuth.* \} from 'ngx-token-refresh\/client';$/),
        'tokenRefreshInterceptor,',
        'provideAuth(',
        "provideUsersApi({ baseUrl: '/api', version: 1 }),",
      ]),
    );
    expect(lines.map((line) => line.text.trim())).toContain('provideHttpClient(');
    expect(lines.some((line) => line.text.trim().startsWith('//'))).toBe(false);
  });

  it('returns nothing for a source without a providers array', () => {
    expect(wiringLines("import { provideAuth } from 'ngx-token-refresh/client';")).toEqual([]);
  });
});
