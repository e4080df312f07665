import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['an unknown host', withCode('getaddrinfo ENOTFOUND db.internal', 'ENOTFOUND')],
    ['a connection cut by the server', new Error('Connection terminated unexpectedly')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a full pool past the timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a broken client',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'an admin shutdown (57P01)',
      withCode('terminating connection due to administrator command', '57P01'),
    ],
    ['a server starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['a full connection table (53300)', withCode('sorry, too many clients already', '53300')],
    [
      'a server taking reads only (25006), mid-failover',
      new QueryFailedError(
        'INSERT',
        [],
        withCode('cannot execute INSERT in a read-only transaction', '25006'),
      ),
    ],
    ['a connection exception (class 08)', withCode('connection failure', '08006')],
    [
      'a connection failure wrapped by TypeORM',
      new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly')),
    ],
    [
      'every address of a host refused',
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
    ],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('duplicate key', '23505'))],
    ['a syntax error', withCode('syntax error at or near "SELEC"', '42601')],
    ['a query cancelled by statement_timeout', withCode('canceling statement', '57014')],
    ['TypeORM used after it was closed', new Error('Driver not Connected')],
    [
      'a chain RPC that refused (fetch failed, caused by ECONNREFUSED)',
      new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
    ],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a string', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('does not loop on an error that wraps itself', () => {
    const error = new Error('odd');
    Object.assign(error, { driverError: error });
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
