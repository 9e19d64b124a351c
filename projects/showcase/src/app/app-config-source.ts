// The text of app.config.ts, read by the build (esbuild's text loader, which @angular/build applies to
// an import with the `loader` attribute): the auth lab shows the app's real provider lines, which
// cannot drift from what runs. TypeScript types the import as the module itself, hence the cast.
// Jest knows no import attributes: it maps this file to app-config-source.jest.ts, which reads the
// same file from disk.
import * as source from './app.config' with { loader: 'text' };

/** The source text of app.config.ts. */
export const appConfigSource: string = (source as unknown as { default: string }).default;
