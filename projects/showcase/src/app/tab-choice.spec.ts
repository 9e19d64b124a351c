import { readTabChoice } from './tab-choice';

describe('readTabChoice', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    sessionStorage.clear();
    history.replaceState(null, '', '/');
  });

  it('is on by default, off with ?name=off, and keeps the choice for this tab until ?name=on', () => {
    expect(readTabChoice('proactive')).toBe(true);

    history.replaceState(null, '', '/lab?proactive=off');
    expect(readTabChoice('proactive')).toBe(false);
    expect(sessionStorage.getItem('showcase.proactive')).toBe('off');
    // The login page and back, or a reload: the URL has lost its query, the tab has not.
    history.replaceState(null, '', '/lab');
    expect(readTabChoice('proactive')).toBe(false);
    // Each switch on its own.
    expect(readTabChoice('crossTab')).toBe(true);

    history.replaceState(null, '', '/lab?proactive=on');
    expect(readTabChoice('proactive')).toBe(true);
    history.replaceState(null, '', '/lab');
    expect(readTabChoice('proactive')).toBe(true);
  });

  it('ignores other values', () => {
    history.replaceState(null, '', '/lab?crossTab=no');
    expect(readTabChoice('crossTab')).toBe(true);
    expect(sessionStorage.getItem('showcase.crossTab')).toBeNull();
  });

  it('is on when the browser blocks storage', () => {
    jest.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('blocked', 'SecurityError');
    });
    history.replaceState(null, '', '/lab?proactive=off');
    expect(readTabChoice('proactive')).toBe(true);
  });
});
