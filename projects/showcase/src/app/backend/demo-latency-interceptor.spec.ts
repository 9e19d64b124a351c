import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';

import { demoBackendInterceptors } from './demo-backend-interceptors';
import { DemoServerState } from './demo-server-state';
import { provideDemoBackend } from './provide-demo-backend';

// The refresh endpoint counts every call it answers, which shows when a request reached the backend.
describe('demoLatencyInterceptor', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('holds a request for latencyMs before the backend sees it', () => {
    const { http, state } = setup(1000);
    const settled = jest.fn();
    http.post('/auth/refresh', null).subscribe({ error: settled });

    jest.advanceTimersByTime(999);
    expect(state.refreshCalls()).toBe(0);
    expect(settled).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(state.refreshCalls()).toBe(1);
    expect(settled).toHaveBeenCalledTimes(1);
  });

  it('sends at once when latencyMs is 0', () => {
    const { http, state } = setup(0);
    http.post('/auth/refresh', null).subscribe({ error: () => undefined });

    expect(state.refreshCalls()).toBe(1);
  });

  it('reads latencyMs when each request is sent', () => {
    const { http, state } = setup(1000);
    http.post('/auth/refresh', null).subscribe({ error: () => undefined });
    state.latencyMs.set(10);
    http.post('/auth/refresh', null).subscribe({ error: () => undefined });

    jest.advanceTimersByTime(10);
    expect(state.refreshCalls()).toBe(1);
    jest.advanceTimersByTime(990);
    expect(state.refreshCalls()).toBe(2);
  });

  it('cancels a request unsubscribed during the wait: the backend never sees it', () => {
    const { http, state } = setup(1000);
    const subscription = http.post('/auth/refresh', null).subscribe({ error: () => undefined });

    jest.advanceTimersByTime(500);
    subscription.unsubscribe();
    jest.advanceTimersByTime(5000);
    expect(state.refreshCalls()).toBe(0);
  });
});

function setup(latencyMs: number) {
  TestBed.configureTestingModule({
    providers: [provideHttpClient(withInterceptors([...demoBackendInterceptors])), provideDemoBackend()],
  });
  const state = TestBed.inject(DemoServerState);
  state.latencyMs.set(latencyMs);
  return { http: TestBed.inject(HttpClient), state };
}
