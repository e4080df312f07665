import { Keypair } from '@solana/web3.js';
import WebSocket from 'ws';
import { startSolanaRpc, type SolanaRpcHandle } from '@app/localnet';
import { rpcCall, rpcPost, type JsonRpcReply } from './solana-fixtures';

jest.setTimeout(30_000);

/** JSON-RPC 2.0 framing on HTTP and the PubSub WebSocket, checked on the wire. */
describe('Solana JSON-RPC framing', () => {
  let solana: SolanaRpcHandle;

  beforeAll(async () => {
    solana = await startSolanaRpc({ port: 0, wsPort: 0, slotMs: 50 });
  });

  afterAll(async () => {
    await solana.stop();
  });

  const post = async (body: string): Promise<JsonRpcReply | JsonRpcReply[]> =>
    JSON.parse((await rpcPost(solana.rpcUrl, body)).text) as JsonRpcReply | JsonRpcReply[];

  it('answers a batch in order, each entry with its own id and outcome', async () => {
    const replies = (await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'getHealth' },
        { jsonrpc: '2.0', id: 7, method: 'getSlot', params: [{ commitment: 'finalized' }] },
        { jsonrpc: '2.0', id: 8, method: 'noSuchMethod', params: [] },
        { jsonrpc: '2.0', method: 'getSlot' },
        { id: 9, method: 'getSlot' },
      ]),
    )) as JsonRpcReply[];
    expect(replies).toHaveLength(4); // the notification (no id) gets no entry
    expect(replies[0]).toEqual({ jsonrpc: '2.0', id: 'a', result: 'ok' });
    expect(replies[1]).toMatchObject({ id: 7, result: expect.any(Number) });
    expect(replies[2]).toMatchObject({
      id: 8,
      error: { code: -32601, message: 'Method not found' },
    });
    expect(replies[3]).toMatchObject({ id: 9, error: { code: -32600 } });
  });

  it('reports a parse error with id null', async () => {
    expect(await post('{"jsonrpc":"2.0","id":1,"method":')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('reports invalid requests: empty batch, non-object, wrong version', async () => {
    expect(await post('[]')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await post('[1]')).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) }),
    ]);
    expect(await post('{"jsonrpc":"1.0","id":3,"method":"getSlot"}')).toMatchObject({
      id: 3,
      error: { code: -32600 },
    });
  });

  it('reports an unknown method', async () => {
    expect(await rpcCall(solana.rpcUrl, 'getEverything')).toMatchObject({
      error: { code: -32601, message: 'Method not found' },
    });
  });

  it('reports invalid params', async () => {
    const cases: [string, unknown[]][] = [
      ['getBalance', []],
      ['getBalance', ['not-a-pubkey']],
      ['getAccountInfo', [Keypair.generate().publicKey.toBase58(), { encoding: 'hex' }]],
      ['getSlot', [{ commitment: 'eventually' }]],
      ['sendTransaction', ['AAAA', { encoding: 'base64' }]],
      ['getSignatureStatuses', ['not-an-array']],
      ['getTokenSupply', [Keypair.generate().publicKey.toBase58()]],
      ['getMinimumBalanceForRentExemption', [-1]],
    ];
    for (const [method, params] of cases) {
      const reply = await rpcCall(solana.rpcUrl, method, params);
      expect({ method, code: reply.error?.code }).toEqual({ method, code: -32602 });
    }
    const unreachable = await rpcCall(solana.rpcUrl, 'getSlot', [{ minContextSlot: 10_000_000 }]);
    expect(unreachable.error?.code).toBe(-32016);
  });

  it('serves GET /health and refuses other verbs', async () => {
    expect(await (await fetch(`${solana.rpcUrl}/health`)).text()).toBe('ok');
    expect((await fetch(solana.rpcUrl, { method: 'PUT' })).status).toBe(405);
  });

  it('encodes account data as base58, base64 and jsonParsed, with dataSlice', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const signature = (await rpcCall(solana.rpcUrl, 'requestAirdrop', [owner, 5_000_000]))
      .result as string;
    expect(signature).toEqual(expect.any(String));
    const info = await rpcCall(solana.rpcUrl, 'getAccountInfo', [owner, { encoding: 'base64' }]);
    expect(info.result).toMatchObject({
      value: {
        lamports: 5_000_000,
        owner: '11111111111111111111111111111111',
        data: ['', 'base64'],
        space: 0,
      },
    });
    const legacy = await rpcCall(solana.rpcUrl, 'getAccountInfo', [owner]);
    expect(legacy.result).toMatchObject({ value: { data: '' } });
    const sysvar = await rpcCall(solana.rpcUrl, 'getAccountInfo', [
      'SysvarRent111111111111111111111111111111111',
      { encoding: 'base58', dataSlice: { offset: 0, length: 4 } },
    ]);
    expect(sysvar.result).toMatchObject({ value: { data: [expect.any(String), 'base58'] } });
    const missing = await rpcCall(solana.rpcUrl, 'getMultipleAccounts', [
      [owner, Keypair.generate().publicKey.toBase58()],
      { encoding: 'jsonParsed' },
    ]);
    expect((missing.result as { value: unknown[] }).value[1]).toBeNull();
  });

  it('pushes slot, account and signature notifications over the WebSocket', async () => {
    const ws = new WebSocket(solana.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const messages: Record<string, unknown>[] = [];
    ws.on('message', (data: Buffer) =>
      messages.push(JSON.parse(data.toString()) as Record<string, unknown>),
    );
    const waitFor = async (predicate: (m: Record<string, unknown>) => boolean) => {
      for (let i = 0; i < 100; i++) {
        const found = messages.find(predicate);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no such message; got ${JSON.stringify(messages.slice(-3))}`);
    };
    const send = (id: number, method: string, params: unknown[] = []) =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));

    const watched = Keypair.generate().publicKey.toBase58();
    send(1, 'slotSubscribe');
    send(2, 'accountSubscribe', [watched, { encoding: 'base64', commitment: 'confirmed' }]);
    send(3, 'noSuchSubscribe');
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping' })); // a notification: no answer
    const slotSub = (await waitFor((m) => m.id === 1)).result as number;
    const accountSub = (await waitFor((m) => m.id === 2)).result as number;
    expect(await waitFor((m) => m.id === 3)).toMatchObject({ error: { code: -32601 } });
    await waitFor((m) => m.method === 'slotNotification');

    const signature = (await rpcCall(solana.rpcUrl, 'requestAirdrop', [watched, 7_000_000]))
      .result as string;
    const accountNote = await waitFor((m) => m.method === 'accountNotification');
    expect(accountNote.params).toMatchObject({
      subscription: accountSub,
      result: { value: { lamports: 7_000_000 } },
    });

    send(4, 'signatureSubscribe', [signature, { commitment: 'finalized' }]);
    const signatureSub = (await waitFor((m) => m.id === 4)).result as number;
    const signatureNote = await waitFor((m) => m.method === 'signatureNotification');
    expect(signatureNote.params).toMatchObject({
      subscription: signatureSub,
      result: { value: { err: null } },
    });

    send(5, 'slotUnsubscribe', [slotSub]);
    expect(await waitFor((m) => m.id === 5)).toMatchObject({ result: true });
    send(6, 'accountUnsubscribe', [12345]);
    expect(await waitFor((m) => m.id === 6)).toMatchObject({ error: { code: -32602 } });
    ws.close();
  });
});
