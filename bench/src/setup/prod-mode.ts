// What a production build does: Angular's dev-mode checks (`ngDevMode`) are compiled out. This must
// run before any Angular code is evaluated, so it is the first import of every entry point.
(globalThis as { ngDevMode?: unknown }).ngDevMode = false;
