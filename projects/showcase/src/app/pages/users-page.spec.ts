import { byTestId, settle, setupShowcase, signIn, type } from '../showcase-test-bed.spec-helper';

describe('UsersPage', () => {
  afterEach(() => document.querySelectorAll('.cdk-overlay-container').forEach((overlay) => overlay.remove()));

  it('shows the first page of users with the total', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/users');
    await settle(harness);

    expect(document.querySelectorAll('[data-testid="user-row"]')).toHaveLength(10);
    expect(byTestId('paginator')?.textContent).toContain('1 – 10 of 42');
  });

  it('shows the server’s validation errors on the fields of the form', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/users');
    await settle(harness);
    byTestId('new-user')?.click();
    await settle(harness);
    type('user-form-name', 'Grace Hopper');
    type('user-form-email', 'ada.lovelace@example.com');
    await settle(harness);

    byTestId('user-form-save')?.click();
    await settle(harness);

    expect(byTestId('field-error-email')?.textContent).toMatch(/taken|already/i);
  });

  it('shows a viewer the users without the buttons that would change them', async () => {
    const harness = await setupShowcase();
    await signIn('alan', 'turing');
    await harness.navigateByUrl('/users');
    await settle(harness);

    expect(document.querySelectorAll('[data-testid="user-row"]')).toHaveLength(10);
    expect(byTestId('new-user')).toBeNull();
    expect(byTestId('edit-user-1')).toBeNull();
  });

  it('confirms a created user in a snack bar', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/users');
    await settle(harness);
    byTestId('new-user')?.click();
    await settle(harness);
    type('user-form-name', 'Grace Hopper');
    type('user-form-email', 'grace@example.com');
    await settle(harness);

    byTestId('user-form-save')?.click();
    // The dialog's close animation runs on a timer before afterClosed fires: wait for the toast.
    for (let i = 0; i < 50 && !document.querySelector('mat-snack-bar-container'); i++) await settle(harness);

    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Created Grace Hopper.');
  });

  it('tells a viewer plainly when the server refuses a change (the token changed hands after the page drew its buttons)', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/users');
    await settle(harness);
    byTestId('new-user')?.click();
    await settle(harness);
    type('user-form-name', 'Grace Hopper');
    type('user-form-email', 'grace@example.com');
    await signIn('alan', 'turing');
    await settle(harness);

    byTestId('user-form-save')?.click();
    await settle(harness);

    expect(byTestId('form-error')?.textContent).toContain(
      'The server refused to create the user: this account is a viewer and may only read users.',
    );
    expect(document.querySelector('mat-snack-bar-container')).toBeNull();
  });
});
