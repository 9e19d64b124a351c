import { HttpClient, HttpContext, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideTokenRefresh, tokenRefreshInterceptor } from 'ngx-token-refresh';

import { LAB_CALL } from './lab-call';
import { labCallTracker } from './lab-call-tracker';
import { LabLog } from './lab-log';

describe('the auth lab timeline', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  it('draws sent → 401 → queued → refresh → repeated → 200 for each call of a burst', () => {
    const { http, httpTesting, log } = setup();
    const ids = log.start(2);
    for (const id of ids) fire(http, id);

    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush({ id });

    expect(log.calls()).toEqual([
      { id: 1, steps: ['sent', '401', 'queued', 'refresh', 'repeated', '200'], outcome: 'ok', status: 200 },
      { id: 2, steps: ['sent', '401', 'queued', 'refresh', 'repeated', '200'], outcome: 'ok', status: 200 },
    ]);
  });

  it('shows a call held during the refresh, and a failed refresh as the end of every waiting call', () => {
    const { http, httpTesting, log } = setup();
    log.start(2);
    fire(http, 1, (status) => log.fail(1, status));
    httpTesting.expectOne('/api/v1/users/1').flush(null, UNAUTHORIZED);
    fire(http, 2, (status) => log.fail(2, status));

    httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/api/v1/users/2').flush(null, UNAUTHORIZED);

    expect(log.calls()).toEqual([
      { id: 1, steps: ['sent', '401', 'queued', 'refresh failed'], outcome: 'failed', status: 401 },
      { id: 2, steps: ['held', 'refresh failed', 'sent', '401'], outcome: 'failed', status: 401 },
    ]);
  });

  it('ignores requests that are not lab calls', () => {
    const { http, httpTesting, log } = setup();
    log.start(1);
    http.get('/api/v1/users/7').subscribe();
    httpTesting.expectOne('/api/v1/users/7').flush({ id: 7 });

    expect(log.calls()).toEqual([{ id: 1, steps: [], outcome: 'pending' }]);
  });
});

const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };

function setup() {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor, labCallTracker])),
      provideHttpClientTesting(),
      provideTokenRefresh({
        refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
        extractToken: (response) => (response.body as { accessToken: string }).accessToken,
      }),
    ],
  });
  return {
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    log: TestBed.inject(LabLog),
  };
}

function fire(http: HttpClient, id: number, failed: (status: number) => void = () => undefined): void {
  http
    .get(`/api/v1/users/${id}`, { context: new HttpContext().set(LAB_CALL, id) })
    .subscribe({ error: (error: { status: number }) => failed(error.status) });
}
