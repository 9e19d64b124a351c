import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from './readme-code.spec-helper';
import { READMES_WITH_FIGURES, fillFigures, markedFigures, readFigures } from './readme-figures.spec-helper';

// Every figure a README quotes from a measurement is marked and must equal the committed results
// (bench/results/results.json, bench/SERVER-RESULTS.md): a new run that changes one fails here until the
// README follows. `WRITE_README_FIGURES=1 npx jest readme-figures` writes the new figures into the READMEs
// (read the sentences around them again: a figure that turned may need other words).
describe('the figures the READMEs quote from measurements', () => {
  const figures = readFigures();
  const write = !!process.env['WRITE_README_FIGURES'];
  const texts = new Map(READMES_WITH_FIGURES.map((readme) => [readme, readFileSync(join(ROOT, readme), 'utf8')]));
  if (write) {
    for (const [readme, text] of texts) {
      const filled = fillFigures(text, figures);
      if (filled !== text) writeFileSync(join(ROOT, readme), filled);
      texts.set(readme, filled);
    }
  }
  const marked = [...texts].flatMap(([readme, text]) => markedFigures(readme, text));

  it.each(READMES_WITH_FIGURES)('%s: each marked figure is the one in the results', (readme) => {
    const wrong = markedFigures(readme, texts.get(readme) ?? '')
      .filter(({ key, value }) => figures.get(key) !== value)
      .map(({ key, value, where }) => `${where}: ${key} is "${value}", the results say "${figures.get(key)}"`);
    expect(wrong).toEqual([]);
  });

  // A line that starts with `<!--` starts an HTML block in Markdown: the paragraph would end there (and
  // Prettier would put a blank line after it).
  it.each(READMES_WITH_FIGURES)('%s: no line starts with a marked figure', (readme) => {
    const lines = (texts.get(readme) ?? '').split('\n');
    const starting = lines.flatMap((line, index) => (/^\s*<!-- results:/.test(line) ? [`${readme}:${index + 1}`] : []));
    expect(starting).toEqual([]);
  });

  it('marks only figures that the results have, and quotes each of them', () => {
    expect(marked.filter(({ key }) => !figures.has(key)).map(({ key, where }) => `${where}: ${key}`)).toEqual([]);
    const quoted = new Set(marked.map(({ key }) => key));
    expect([...figures.keys()].filter((key) => !quoted.has(key))).toEqual([]);
  });
});
