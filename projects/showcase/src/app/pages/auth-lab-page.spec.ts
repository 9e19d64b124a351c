import { TestBed } from '@angular/core/testing';

import { DemoServerState } from '../backend/demo-server-state';
import { byTestId, settle, setupShowcase, signIn } from '../showcase-test-bed.spec-helper';

describe('AuthLabPage', () => {
  it('counts down the token and shows it expired by the lab', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);
    expect(byTestId('token-remaining')?.textContent?.trim()).toMatch(/^([1-9]|[12][0-9]|30) s left$/);

    byTestId('expire-token')?.click();
    harness.detectChanges();

    expect(byTestId('token-remaining')?.textContent?.trim()).toBe('expired (by the lab)');
  });

  it('serves a burst with an expired token with one refresh and draws every call', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);
    byTestId('expire-token')?.click();

    byTestId('fire-calls')?.click();
    await settle(harness);

    expect(byTestId('success-count')?.textContent?.trim()).toBe('10');
    expect(byTestId('burst-refresh-count')?.textContent?.trim()).toBe('1');
    expect(TestBed.inject(DemoServerState).refreshCalls()).toBe(1);
    const rows = [...document.querySelectorAll('[data-testid="call-row"]')];
    expect(rows).toHaveLength(10);
    const steps = [...(rows[0]?.querySelectorAll('.step') ?? [])].map((step) => step.textContent?.trim());
    expect(steps).toEqual(['sent', '401', 'queued', 'refresh', 'repeated', '200']);
  });
});
