import { Injectable } from '@angular/core';

/** Where the attach-only contenders keep the access token: in memory, in a root service. */
@Injectable({ providedIn: 'root' })
export class Session {
  token: string | null = null;
}
