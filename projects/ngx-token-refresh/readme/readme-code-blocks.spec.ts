import { NOT_COMPILED, READMES, readCodeBlocks, typeCheck } from './readme-code.spec-helper';

// Every ```ts block of the READMEs compiles against the library's sources, so a renamed or removed
// option, export or signature fails here before a user pastes it (see readme-code.spec-helper.ts).
describe('the code blocks of the READMEs', () => {
  const blocks = READMES.flatMap(readCodeBlocks);
  const compiled = blocks.filter((block) => !block.notCompiled);
  let diagnostics: Map<string, string[]>;
  beforeAll(() => {
    diagnostics = typeCheck(compiled);
    const skipped = blocks.filter((block) => block.notCompiled).map((block) => block.where);
    console.log(
      `${compiled.length} README code blocks type-checked; not compiled (${NOT_COMPILED}): ${skipped.join(', ')}`,
    );
  }, 120_000);

  it.each(READMES)('%s starts with a complete file: imports included, nothing added', (readme) => {
    const [first] = readCodeBlocks(readme);
    expect(first?.isFile).toBe(true);
    expect(first?.notCompiled).toBe(false);
  });

  // A block users paste must work pasted as it is: its imports included (a fragment would get the
  // helper's prelude and compile here, yet fail in the user's file).
  it('has every compiled block as a complete file, imports included', () => {
    expect(compiled.filter((block) => !block.isFile).map((block) => block.where)).toEqual([]);
  });

  it.each(compiled.map((block) => [block.where, block] as const))('%s compiles', (where) => {
    expect(diagnostics.get(where)).toEqual([]);
  });
});
