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
