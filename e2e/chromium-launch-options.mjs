/**
 * How every browser test of the repository starts Chromium (the showcase's, the reference server's,
 * the integration apps'): Debian's `/usr/bin/chromium`, or the browser at CHROME_BIN. Playwright never
 * downloads one.
 */
export const chromiumLaunchOptions = {
  executablePath: process.env['CHROME_BIN'] || '/usr/bin/chromium',
  // Without the background-networking flags Chromium keeps dialling Google on a closed network.
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};
