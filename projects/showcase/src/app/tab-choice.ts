/** The showcase's per-tab switches, each turned off with `?name=off` and back on with `?name=on`. */
export type TabSwitch = 'crossTab' | 'proactive';

/**
 * Whether this tab has `name` on: yes, unless a page of this tab was loaded with `?name=off` (until
 * one is loaded with `?name=on`). The choice is kept in sessionStorage (`showcase.name`), so it
 * survives the redirects to and from the login page and reloads of this tab, and stays out of every
 * other tab. Read it once, when the app starts.
 */
export function readTabChoice(name: TabSwitch): boolean {
  const key = `showcase.${name}`;
  try {
    const asked = new URLSearchParams(location.search).get(name);
    if (asked === 'off' || asked === 'on') sessionStorage.setItem(key, asked);
    return sessionStorage.getItem(key) !== 'off';
  } catch {
    // No storage (blocked by the browser's settings): the default.
    return true;
  }
}

/**
 * Whether this tab refreshes the access token ahead of its expiry (`withProactiveRefresh()`, which
 * app.config.ts passes to `provideAuth`): yes, as recommended, unless this tab asked for
 * `?proactive=off`, to watch the difference in the auth lab.
 */
export const proactiveRefresh = readTabChoice('proactive');

/**
 * How long nobody may be active in any tab before the session ends (`withIdleTimeout()`, which
 * app.config.ts passes to `provideAuth`), in milliseconds: 5 minutes, or the seconds a page of this
 * tab was loaded with (`?idle=30`, from 4 s to a day), kept like the switches above. The warning comes
 * a minute before the end, or half-way for shorter times.
 */
export const idleTimeoutMs = readIdleSeconds() * 1000;

function readIdleSeconds(): number {
  const key = 'showcase.idle';
  try {
    const asked = new URLSearchParams(location.search).get('idle');
    if (asked !== null && /^\d+$/.test(asked) && Number(asked) >= 4 && Number(asked) <= 86_400) {
      sessionStorage.setItem(key, asked);
    }
    return Number(sessionStorage.getItem(key) ?? 300);
  } catch {
    return 300;
  }
}
