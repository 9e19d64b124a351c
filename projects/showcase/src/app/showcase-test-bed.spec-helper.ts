import { TestBed } from '@angular/core/testing';
import { RouterTestingHarness } from '@angular/router/testing';
import { AuthClient } from 'ngx-token-refresh/client';
import { firstValueFrom } from 'rxjs';

import { appConfig } from './app.config';
import { DemoServerState } from './backend/demo-server-state';

// Shared by the pages' specs: the showcase's real providers (router, library, in-memory backend),
// without latency, so a page test runs the app as a visitor would, only faster.

/** Configures TestBed with the app's providers and returns a router harness. */
export async function setupShowcase(): Promise<RouterTestingHarness> {
  TestBed.configureTestingModule({ providers: appConfig.providers });
  TestBed.inject(DemoServerState).latencyMs.set(0);
  return RouterTestingHarness.create();
}

/** Signs in (as the demo admin unless told otherwise) through the library's AuthClient. */
export async function signIn(username = 'ada', password = 'lovelace'): Promise<void> {
  await firstValueFrom(TestBed.inject(AuthClient).login({ username, password }), {
    defaultValue: undefined,
  });
}

/** Lets the in-memory backend answer and the page render. */
export async function settle(harness: RouterTestingHarness): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await harness.fixture.whenStable();
  }
  harness.detectChanges();
}

/** The element with this data-testid anywhere in the document (dialogs render in an overlay). */
export function byTestId<T extends Element = HTMLElement>(id: string): T | null {
  return document.querySelector<T>(`[data-testid="${id}"]`);
}

/** Types into an input as a person would (value, then the input event forms listen to). */
export function type(id: string, value: string): void {
  const input = byTestId<HTMLInputElement>(id);
  if (!input) throw new Error(`no input with data-testid ${id}`);
  input.value = value;
  input.dispatchEvent(new Event('input'));
}
