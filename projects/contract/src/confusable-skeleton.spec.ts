import { CONFUSABLES_COUNT, CONFUSABLES_UNICODE_VERSION } from './confusable-prototypes-data';
import { confusableSkeleton } from './confusable-skeleton';

describe('confusableSkeleton', () => {
  it('is built from confusables.txt 17.0.0, every entry decoded', () => {
    expect(CONFUSABLES_UNICODE_VERSION).toBe('17.0.0');
    expect(CONFUSABLES_COUNT).toBe(6565);
  });

  it.each([
    ['Armenian օ (U+0585)', 'l\u0585ve', 'love'],
    ['Latin alpha ɑ (U+0251)', '\u0251da', 'ada'],
    ['Cherokee Ꭺ (U+13AA)', '\u13aada', 'Ada'],
    ['Cyrillic с and о', '\u0441\u043e\u0441\u043e', 'coco'],
    ['Greek ο', 'j\u03bfhn', 'john'],
    ['mathematical letters', '\ud835\udd2d\ud835\udcb6\u1ef3\ud835\udd61\ud835\udd52\u2113', 'pa\u1ef3pal'],
  ])('gives a look-alike the skeleton of the letters it passes for: %s', (_case, lookAlike, latin) => {
    expect(confusableSkeleton(lookAlike)).toBe(confusableSkeleton(latin));
  });

  it('maps to prototypes, as UTS #39 defines them: 0 is O, 1 and I are l, m is rn', () => {
    expect(confusableSkeleton('0')).toBe('O');
    expect(confusableSkeleton('1I')).toBe('ll');
    expect(confusableSkeleton('m')).toBe('rn');
  });

  it('is in NFD, without default-ignorable characters', () => {
    expect(confusableSkeleton('jos\u00e9')).toBe('jose\u0301');
    expect(confusableSkeleton('a\u200bd\u00ada')).toBe('ada');
  });

  it('keeps case and different letters apart', () => {
    expect(confusableSkeleton('a')).not.toBe(confusableSkeleton('A'));
    expect(confusableSkeleton('ada')).not.toBe(confusableSkeleton('ade'));
  });
});
