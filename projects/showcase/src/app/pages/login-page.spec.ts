import { TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { byTestId, settle, setupShowcase, type } from '../showcase-test-bed.spec-helper';

describe('LoginPage', () => {
  it('says why when the password is wrong, and stays', async () => {
    const harness = await setupShowcase();
    await harness.navigateByUrl('/login');
    type('username', 'ada');
    type('password', 'wrong');
    harness.detectChanges();

    byTestId('login-submit')?.click();
    await settle(harness);

    expect(byTestId('login-error')?.textContent?.trim()).toBe('Wrong username or password.');
    expect(TestBed.inject(Router).url).toBe('/login');
  });

  it('fills the form from a demo account and goes to the requested page after signing in', async () => {
    const harness = await setupShowcase();
    await harness.navigateByUrl('/login?returnUrl=%2Fusers');
    const use = [...document.querySelectorAll('button')].find((button) => button.textContent?.trim() === 'Use');
    use?.click();
    harness.detectChanges();

    byTestId('login-submit')?.click();
    await settle(harness);

    expect(TestBed.inject(Router).url).toBe('/users');
  });

  it('goes to the auth lab when no page was asked for', async () => {
    const harness = await setupShowcase();
    await harness.navigateByUrl('/login');
    type('username', 'ada');
    type('password', 'lovelace');
    harness.detectChanges();

    byTestId('login-submit')?.click();
    await settle(harness);

    expect(TestBed.inject(Router).url).toBe('/lab');
  });

  it('tells that the session ended when sent back after a failed refresh', async () => {
    const harness = await setupShowcase();
    await harness.navigateByUrl('/login?reason=expired');

    expect(byTestId('session-message')?.textContent).toContain('Your session has ended');
  });

  it('tells that another tab signed out when sent here for that', async () => {
    const harness = await setupShowcase();
    await harness.navigateByUrl('/login?reason=signed-out&returnUrl=%2Flab');

    expect(byTestId('session-message')?.textContent?.trim()).toBe('You signed out in another tab.');
  });

  it('tells that the session ended for idleness when sent here for that', async () => {
    const harness = await setupShowcase();
    await harness.navigateByUrl('/login?reason=idle&returnUrl=%2Flab');

    expect(byTestId('session-message')?.textContent?.trim()).toBe(
      'You were signed out because nobody used the app for a while.',
    );
  });
});
