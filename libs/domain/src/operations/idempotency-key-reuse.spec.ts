import { AppError } from '@app/common';
import { hashOf, keyWindowStart, replayedOperationId } from './idempotency-key-reuse';

const request = (body: unknown) => ({ method: 'POST', path: '/v1/tokens', body });

describe('hashOf', () => {
  it('is the same for the same request, whatever the order of its keys', () => {
    expect(hashOf(request({ name: 'Gold', supply: '100', meta: { a: 1, b: [2, 3] } }))).toBe(
      hashOf({
        body: { meta: { b: [2, 3], a: 1 }, supply: '100', name: 'Gold' },
        path: '/v1/tokens',
        method: 'POST',
      }),
    );
  });

  it('differs for another body, path or method', () => {
    const first = hashOf(request({ name: 'Gold', supply: '100' }));
    expect(hashOf(request({ name: 'Gold', supply: '101' }))).not.toBe(first);
    expect(hashOf({ ...request({ name: 'Gold', supply: '100' }), path: '/v1/nfts' })).not.toBe(
      first,
    );
    expect(hashOf({ ...request({ name: 'Gold', supply: '100' }), method: 'PUT' })).not.toBe(first);
  });

  it('keeps the order of arrays', () => {
    expect(hashOf(request({ to: ['a', 'b'] }))).not.toBe(hashOf(request({ to: ['b', 'a'] })));
  });

  it('leaves out fields that are undefined, not those that are null', () => {
    expect(hashOf(request({ name: 'Gold', memo: undefined }))).toBe(
      hashOf(request({ name: 'Gold' })),
    );
    expect(hashOf(request({ name: 'Gold', memo: null }))).not.toBe(
      hashOf(request({ name: 'Gold' })),
    );
  });

  it('tells a number from its text, and a value from a one-element array', () => {
    expect(hashOf(request({ supply: 100 }))).not.toBe(hashOf(request({ supply: '100' })));
    expect(hashOf(request({ supply: '100' }))).not.toBe(hashOf(request({ supply: ['100'] })));
  });

  it('hashes a request without a body', () => {
    expect(hashOf(request(undefined))).toBe(hashOf({ method: 'POST', path: '/v1/tokens' }));
    expect(hashOf(undefined)).toBe(hashOf(null));
  });
});

describe('keyWindowStart', () => {
  it('is the retention window before the request', () => {
    expect(keyWindowStart(new Date('2025-03-02T12:00:00Z'), 24)).toEqual(
      new Date('2025-03-01T12:00:00Z'),
    );
    expect(keyWindowStart(new Date('2025-03-02T12:00:00Z'), 0)).toEqual(
      new Date('2025-03-02T12:00:00Z'),
    );
  });
});

describe('replayedOperationId', () => {
  const holder = { requestHash: hashOf(request({ name: 'Gold' })), operationId: 'op-first' };

  it("answers the same request with the first request's operation", () => {
    expect(replayedOperationId(holder, hashOf(request({ name: 'Gold' })))).toBe('op-first');
  });

  it('is a 409 for another request under the same key', () => {
    const reuse = () => replayedOperationId(holder, hashOf(request({ name: 'Silver' })));
    expect(reuse).toThrow(AppError);
    expect(reuse).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        status: 409,
        message: 'This Idempotency-Key was used with a different request.',
      }),
    );
  });

  it('is a 409 to retry when no holder is in sight although the claim failed', () => {
    expect(() => replayedOperationId(null, holder.requestHash)).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        message: 'This Idempotency-Key is being used; retry.',
      }),
    );
  });
});
