/** One line of the "How this page is wired" panel, and whether it names something of the library. */
export interface WiringLine {
  readonly text: string;
  readonly library: boolean;
}

/**
 * The lines of an application config that wire the library: its imports from `ngx-token-refresh` (and its entry points)
 * and the `providers` array, without comments, each marked when it uses a name that import brought
 * in. Pure; returns `[]` if the source has no such array (the panel then says so).
 *
 * @example wiringLines(appConfigSource) // [{ text: "import { provideAuth } from 'ngx-token-refresh/client';", library: true }, …]
 */
export function wiringLines(source: string): WiringLine[] {
  const imports = [...source.matchAll(/^import \{([^}]*)\} from 'ngx-token-refresh(?:\/[a-z]+)?';$/gm)];
  const names = imports.flatMap((match) => (match[1] ?? '').split(',').map((name) => name.trim()));
  const providers = /^ {2}providers: \[\n([\s\S]*?)^ {2}\],$/m.exec(source)?.[1];
  if (!providers) return [];
  const uses = (text: string): boolean => names.some((name) => name && new RegExp(`\\b${name}\\b`).test(text));
  const body = providers
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('//'))
    .map((line) => line.slice(4));
  return [
    ...imports.map((match) => ({ text: match[0], library: true })),
    { text: '', library: false },
    { text: 'providers: [', library: false },
    ...body.map((text) => ({ text: `  ${text}`, library: uses(text) })),
    { text: ']', library: false },
  ];
}
