import { DestroyRef, EnvironmentInjector, InjectionToken, inject } from '@angular/core';

import type { RefreshGate } from './refresh-gate';

/** The refresh gates of one application, one per controller, torn down with its root injector. */
export interface TokenRefreshGates {
  /** The gate of `key` in this application, created by `create` on first use. */
  get(key: object, create: (injector: EnvironmentInjector) => RefreshGate): RefreshGate;
}

/**
 * Where an application keeps its refresh state. Provided in `root`, so every application (every
 * root injector: a browser tab, or one server-rendered request) has its own lock, queue and token,
 * even when they share one controller object from module scope.
 */
export const TOKEN_REFRESH_GATES = new InjectionToken<TokenRefreshGates>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_REFRESH_GATES' : '',
  {
    providedIn: 'root',
    factory: () => {
      const injector = inject(EnvironmentInjector);
      const gates = new Map<object, RefreshGate>();
      inject(DestroyRef).onDestroy(() => {
        for (const gate of gates.values()) gate.destroy();
        gates.clear();
      });
      return {
        get(key, create) {
          let gate = gates.get(key);
          if (!gate) gates.set(key, (gate = create(injector)));
          return gate;
        },
      };
    },
  },
);
