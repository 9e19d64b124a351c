import { HttpHeaders, HttpRequest } from '@angular/common/http';

import { LabDPoP } from './lab-dpop';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const request = (headers: Record<string, string>) =>
  new HttpRequest('GET', '/api/v1/users/1', null, { headers: new HttpHeaders(headers) });

describe('LabDPoP', () => {
  it('keeps the call, the scheme and the decoded header and claims of the last proof', () => {
    const lab = new LabDPoP();
    const proof = `${part({ typ: 'dpop+jwt', alg: 'ES256' })}.${part({ htm: 'GET', jti: 'é-1' })}.c2ln`;
    lab.record(request({ Authorization: 'DPoP abc', DPoP: proof }));
    expect(lab.last()).toEqual({
      call: 'GET /api/v1/users/1',
      scheme: 'DPoP',
      header: { typ: 'dpop+jwt', alg: 'ES256' },
      claims: { htm: 'GET', jti: 'é-1' },
    });
    lab.record(request({ DPoP: proof }));
    expect(lab.last()?.scheme).toBe('none');
  });

  it('ignores a request without a proof, or with one that does not decode, and keeps the last good one', () => {
    const lab = new LabDPoP();
    lab.record(request({}));
    expect(lab.last()).toBeNull();
    const good = `${part({ typ: 'dpop+jwt' })}.${part({ htm: 'GET' })}.c2ln`;
    lab.record(request({ DPoP: good }));
    for (const bad of [
      '',
      'not-a-jws',
      `${part([1])}.${part({})}.x`,
      `${part({})}.%%%.x`,
      `${part({})}.${part('text')}.x`,
    ]) {
      lab.record(request({ DPoP: bad }));
    }
    expect(lab.last()?.claims).toEqual({ htm: 'GET' });
  });
});
