import { setupZonelessTestEnv } from 'jest-preset-angular/setup-env/zoneless';

setupZonelessTestEnv();

// The page specs render the whole showcase; the first test of a file pays for compiling it cold
// (about 1 s on a quiet 2-core machine, and once over Jest's default 5 s when CI kept both cores
// busy). A test that hangs still fails, after 15 s. (Jest 30 ignores `testTimeout` in a project's
// configuration, hence here.)
jest.setTimeout(15_000);
