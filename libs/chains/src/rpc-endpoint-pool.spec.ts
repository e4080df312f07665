import {
  RpcAttemptTimeout,
  RpcEndpointPool,
  attemptOrder,
  redactRpcUrl,
  type EndpointPoolOptions,
} from './rpc-endpoint-pool';

/** A transport failure, as opposed to a node's answer. */
class Unreachable extends Error {}
class NodeAnswer extends Error {}

const URLS = ['http://a.example:1/key-a', 'http://b.example:2', 'http://c.example:3'];

function pool(options: Partial<EndpointPoolOptions> = {}) {
  let now = 1_000_000;
  const takenOut: number[] = [];
  const endpoints = new RpcEndpointPool(
    URLS.map((url, index) => ({ url, client: index })),
    {
      cooldownMs: 30_000,
      attemptTimeoutMs: 50,
      isTransportFailure: (error) => error instanceof Unreachable,
      onTakenOut: ({ index }) => takenOut.push(index),
      now: () => now,
      ...options,
    },
  );
  return {
    endpoints,
    takenOut,
    advance: (ms: number) => (now += ms),
  };
}

/** Work that fails with a transport error on the given endpoints and answers its index elsewhere. */
function failingOn(...down: number[]) {
  const tried: number[] = [];
  const work = (client: number) => {
    tried.push(client);
    return down.includes(client)
      ? Promise.reject(new Unreachable(`endpoint ${client} down`))
      : Promise.resolve(client);
  };
  return { work, tried };
}

describe('attemptOrder', () => {
  const up = { failedAt: null, coolingUntil: 0 };

  it('tries every endpoint that is up, in configured order', () => {
    expect(attemptOrder([up, up, up], 10)).toEqual([0, 1, 2]);
    expect(attemptOrder([{ failedAt: 5, coolingUntil: 20 }, up, up], 10)).toEqual([1, 2]);
  });

  it('takes an endpoint back once its cool-down has passed', () => {
    expect(attemptOrder([{ failedAt: 5, coolingUntil: 10 }, up], 10)).toEqual([0, 1]);
  });

  it('when every endpoint is out, tries only the one that failed longest ago', () => {
    const records = [
      { failedAt: 8, coolingUntil: 38 },
      { failedAt: 3, coolingUntil: 33 },
      { failedAt: 6, coolingUntil: 36 },
    ];
    expect(attemptOrder(records, 10)).toEqual([1]);
  });
});

describe('redactRpcUrl', () => {
  it('keeps scheme, host and port only', () => {
    expect(redactRpcUrl('https://user:secret@rpc.example:8545/v3/KEY?apikey=x')).toBe(
      'https://rpc.example:8545',
    );
    expect(redactRpcUrl('https://rpc.example/KEY')).toBe('https://rpc.example');
  });
});

describe('RpcEndpointPool', () => {
  it('sends every call to the preferred endpoint while it answers', async () => {
    const { endpoints } = pool();
    const { work, tried } = failingOn();
    expect(await endpoints.run(work)).toBe(0);
    expect(await endpoints.run(work)).toBe(0);
    expect(tried).toEqual([0, 0]);
    expect(endpoints.active()).toBe(0);
  });

  it('retries a transport failure on the next endpoint within the same call', async () => {
    const { endpoints, takenOut } = pool();
    const { work, tried } = failingOn(0);
    expect(await endpoints.run(work)).toBe(1);
    expect(tried).toEqual([0, 1]);
    expect(takenOut).toEqual([0]);
  });

  it('passes a failed endpoint over during its cool-down, then tries it first again', async () => {
    const { endpoints, advance } = pool();
    await endpoints.run(failingOn(0).work);

    const during = failingOn();
    advance(29_999);
    expect(await endpoints.run(during.work)).toBe(1);
    expect(during.tried).toEqual([1]);
    expect(endpoints.active()).toBe(1);

    const after = failingOn();
    advance(1);
    expect(await endpoints.run(after.work)).toBe(0);
    expect(after.tried).toEqual([0]);
  });

  it('does not fail over on a node answer, which any endpoint would give alike', async () => {
    const { endpoints } = pool();
    const tried: number[] = [];
    const answer = new NodeAnswer('execution reverted');
    await expect(
      endpoints.run((client) => {
        tried.push(client);
        return Promise.reject(answer);
      }),
    ).rejects.toBe(answer);
    expect(tried).toEqual([0]);
    expect(endpoints.report()[0].state).toBe('up');
  });

  it('when every endpoint is out, still tries the one that failed longest ago', async () => {
    const { endpoints, advance } = pool();
    const allDown = failingOn(0, 1, 2);
    await expect(endpoints.run(allDown.work)).rejects.toThrow('endpoint 2 down');
    expect(allDown.tried).toEqual([0, 1, 2]);

    advance(1_000);
    const stillDown = failingOn(0, 1, 2);
    await expect(endpoints.run(stillDown.work)).rejects.toThrow('endpoint 0 down');
    expect(stillDown.tried).toEqual([0]);

    // 0 has just failed again, so 1 is now the one that failed longest ago; it is back.
    advance(1_000);
    const back = failingOn(0, 2);
    expect(await endpoints.run(back.work)).toBe(1);
    expect(back.tried).toEqual([1]);
    expect(endpoints.report().map((endpoint) => endpoint.state)).toEqual([
      'cooling_down',
      'up',
      'cooling_down',
    ]);
  });

  it('treats an attempt that does not answer in time as a transport failure', async () => {
    const { endpoints, takenOut } = pool({ attemptTimeoutMs: 20 });
    const tried: number[] = [];
    const result = await endpoints.run((client) => {
      tried.push(client);
      return client === 0 ? new Promise<number>(() => undefined) : Promise.resolve(client);
    });
    expect(result).toBe(1);
    expect(tried).toEqual([0, 1]);
    expect(takenOut).toEqual([0]);
  });

  it('throws the timeout error the caller asks for', async () => {
    class FamilyTransportError extends Error {}
    const { endpoints } = pool({
      attemptTimeoutMs: 10,
      timeoutError: (ms) => new FamilyTransportError(`no answer in ${ms} ms`),
      isTransportFailure: (error) => error instanceof FamilyTransportError,
    });
    const hang = () => new Promise<number>(() => undefined);
    await expect(endpoints.run(hang)).rejects.toBeInstanceOf(FamilyTransportError);
    expect(endpoints.report().every((endpoint) => endpoint.state === 'cooling_down')).toBe(true);
    await expect(endpoints.attempt(0, hang, 5)).rejects.toThrow('no answer in 5 ms');
  });

  it('announces an endpoint taken out once, however many calls fail on it', async () => {
    const { endpoints, takenOut } = pool();
    await Promise.all(
      Array.from({ length: 5 }, () => endpoints.attempt(0, failingOn(0).work).catch(() => null)),
    );
    expect(takenOut).toEqual([0]);
  });

  it('reports each endpoint, redacted, with its state and last error time', async () => {
    const { endpoints, advance } = pool();
    await endpoints.run(failingOn(0).work);
    const failedAt = new Date(1_000_000);
    expect(endpoints.report()).toEqual([
      { index: 0, url: 'http://a.example:1', state: 'cooling_down', lastErrorAt: failedAt },
      { index: 1, url: 'http://b.example:2', state: 'up', lastErrorAt: null },
      { index: 2, url: 'http://c.example:3', state: 'up', lastErrorAt: null },
    ]);
    // A success (a probe, or a call when all were out) brings it back at once; the time stays.
    advance(5);
    await endpoints.attempt(0, failingOn().work);
    expect(endpoints.report()[0]).toMatchObject({ state: 'up', lastErrorAt: failedAt });
  });

  it('uses its own timeout error by default', async () => {
    const { endpoints } = pool({ attemptTimeoutMs: 5 });
    await expect(endpoints.attempt(2, () => new Promise(() => undefined))).rejects.toBeInstanceOf(
      RpcAttemptTimeout,
    );
  });
});
