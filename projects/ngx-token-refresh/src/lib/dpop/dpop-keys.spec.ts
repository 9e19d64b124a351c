import { PLATFORM_ID } from '@angular/core';
import { TestBed } from '@angular/core/testing';

import type { DPoPKeyStore } from './dpop-key-store';
import { toDPoPKey } from './dpop-key';
import { type DPoPKeys, createDPoPKeys } from './dpop-keys';
import { useNodeWebCrypto } from './dpop-proof.spec-helper';

// The key source's rules, against a store that can fail or be emptied as IndexedDB can (jsdom has
// none; Chromium runs the real one): a tab keeps its key, follows only a session bound to the stored
// key, and puts the session's key back.

/** A store like IndexedDB's: one slot, `add` only into an empty one; `failing` makes every call fail. */
class FakeStore implements DPoPKeyStore {
  stored: CryptoKeyPair | undefined;
  failing = false;
  load(): Promise<CryptoKeyPair | undefined> {
    return this.failing ? Promise.reject(new Error('connection lost')) : Promise.resolve(this.stored);
  }
  add(pair: CryptoKeyPair): Promise<CryptoKeyPair> {
    if (this.failing) return Promise.reject(new Error('connection lost'));
    return Promise.resolve((this.stored ??= pair));
  }
  replace(pair: CryptoKeyPair): Promise<void> {
    if (this.failing) return Promise.reject(new Error('connection lost'));
    this.stored = pair;
    return Promise.resolve();
  }
}

const newPair = () =>
  crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>;
const thumbprintOf = async (pair: CryptoKeyPair | undefined) => (await toDPoPKey(pair!)).thumbprint;

describe('the DPoP key source', () => {
  useNodeWebCrypto();

  function setup(): { keys: DPoPKeys; store: FakeStore } {
    TestBed.configureTestingModule({ providers: [{ provide: PLATFORM_ID, useValue: 'browser' }] });
    const store = new FakeStore();
    return { keys: TestBed.runInInjectionContext(() => createDPoPKeys('test', store)), store };
  }

  it('makes a key on first use, stores it, and uses the stored one from then on', async () => {
    const { keys, store } = setup();
    const first = await keys.current();
    expect(await thumbprintOf(store.stored)).toBe(first.thumbprint);
    expect((await keys.current()).thumbprint).toBe(first.thumbprint);
  });

  it('keeps its key when the store fails later: no new key, and keep() does not throw', async () => {
    const { keys, store } = setup();
    const first = await keys.current();
    store.failing = true;
    await expect(keys.keep()).resolves.toBeUndefined();
    expect((await keys.follow('another-thumbprint')).thumbprint).toBe(first.thumbprint);
    expect((await keys.current()).thumbprint).toBe(first.thumbprint);
  });

  it('puts its key back when the store lost it or holds another', async () => {
    const { keys, store } = setup();
    const mine = await keys.current();
    store.stored = undefined;
    await keys.keep();
    expect(await thumbprintOf(store.stored)).toBe(mine.thumbprint);
    store.stored = await newPair();
    await keys.keep();
    expect(await thumbprintOf(store.stored)).toBe(mine.thumbprint);
  });

  it("follows the stored key only for a session bound to it (the token's cnf.jkt)", async () => {
    const { keys, store } = setup();
    const mine = await keys.current();
    const theirs = await newPair();
    store.stored = theirs;
    // Bound to a key that is neither: nothing changes.
    expect((await keys.follow('unknown')).thumbprint).toBe(mine.thumbprint);
    // Bound to the stored key: this tab signs with it from now on, refreshes included.
    const followed = await keys.follow(await thumbprintOf(theirs));
    expect(followed.thumbprint).toBe(await thumbprintOf(theirs));
    expect((await keys.current()).thumbprint).toBe(followed.thumbprint);
  });
});
