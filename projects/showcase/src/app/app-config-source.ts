// The text of app.config.ts, for the auth lab's "How this page is wired": the build copies the file as
// it is (angular.json, an asset at source/app.config.ts), and the panel loads it, so it shows the
// app's real provider lines and cannot drift from what runs. Not an import `with { loader: 'text' }`:
// @angular/build 21 then watches a file named "app.config.ts with { loader: 'text' }", which does not
// exist, and `ng serve` rebuilds once right after it starts. Jest maps this file to
// app-config-source.jest.ts, which reads the same file from disk.

/**
 * Loads the source text of app.config.ts, as built, from the page's base URL.
 *
 * @example loadAppConfigSource(document.baseURI).then((source) => wiringLines(source))
 */
export async function loadAppConfigSource(baseUri: string): Promise<string> {
  // fetch, not HttpClient: the in-memory backend would answer it, and no interceptor has a say in it.
  const response = await fetch(new URL('source/app.config.ts', baseUri));
  if (!response.ok) throw new Error(`source/app.config.ts: ${response.status} ${response.statusText}`);
  return response.text();
}
