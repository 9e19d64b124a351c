import { attachCatch, attachOnly } from './attach-only';
import { auth0Jwt } from './auth0-jwt';
import { bare } from './bare';
import { behaviorSubject } from './behavior-subject';
import type { Contender, ContenderId } from './contender';
import { ngxAuth } from './ngx-auth';
import { ngxTokenRefresh } from './ngx-token-refresh';

/** Every contender by id. */
export const CONTENDERS: Readonly<Record<ContenderId, Contender>> = {
  bare,
  'attach-only': attachOnly,
  'attach-catch': attachCatch,
  'auth0-jwt': auth0Jwt,
  'behavior-subject': behaviorSubject,
  'ngx-auth': ngxAuth,
  'ngx-token-refresh': ngxTokenRefresh,
};
