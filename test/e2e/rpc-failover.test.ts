import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getAccount,
  getAssociatedTokenAddressSync,
  getMint,
} from '@solana/spl-token';
import { Wallet } from 'ethers';
import { readTokenBalance, readTokenSupply } from '@app/chains';
import { evmReader } from '@test/support/chain-reads';
import { ISO_MS, settledOperation, summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

type Chain = 'base' | 'solana';
const CHAINS: Chain[] = ['base', 'solana'];
/** Mints per chain. */
const MINTS = 12;
const DECIMALS = 2;
const INITIAL = 1_000;

/**
 * Two RPC endpoints per chain (two TCP proxies in front of one local chain, given as a comma
 * list). Mid-run the preferred endpoint of each chain dies for good: the API and the worker fail
 * over to the other, every mint lands exactly once (read on chain, not through the service), and
 * /health shows the dead endpoint cooling down while the chain stays up.
 */
describe('RPC failover', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  const tokens: Record<Chain, string> = { base: '', solana: '' };

  beforeAll(async () => {
    stack = await startServiceStack({
      rpcProxies: 2,
      env: { RPC_TIMEOUT_MS: '1000', RPC_FAILOVER_COOLDOWN_MS: '600000' },
    });
    ({ api } = await newAccountClient(stack.http));
    for (const network of CHAINS) {
      const created = await api.post('/tokens', {
        network,
        name: `Failover ${network}`,
        symbol: 'FOV',
        amount: INITIAL,
        decimals: DECIMALS,
      });
      expect(summary(created)).toMatchObject({ status: 200 });
      tokens[network] = created.body.data.mint_address;
    }
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('lands every mint once while the preferred endpoint of each chain dies', async () => {
    const recipients: Record<Chain, string[]> = {
      base: Array.from({ length: MINTS }, () => Wallet.createRandom().address),
      solana: Array.from({ length: MINTS }, () => Keypair.generate().publicKey.toBase58()),
    };
    // Distinct recipients and amounts: each mint is its own transaction, told apart on chain.
    const requests = CHAINS.flatMap((network) =>
      recipients[network].map((recipient, index) => ({ network, recipient, amount: index + 1 })),
    );
    // When half the requests are answered (the other half still in flight, and the worker busy
    // with the first), the preferred endpoint of each chain dies for good.
    let answered = 0;
    let killed: Promise<unknown> | undefined;
    const ids = await Promise.all(
      requests.map(async ({ network, recipient, amount }) => {
        const response = await api.post(
          `/tokens/${tokens[network]}/mint`,
          { amount, recipient },
          { prefer: 'respond-async' },
        );
        expect(summary(response)).toMatchObject({ status: 202 });
        if (++answered === requests.length / 2) {
          killed = Promise.all([stack.proxies.evm[0].close(), stack.proxies.solana[0].close()]);
        }
        return response.body.data.operation_id as string;
      }),
    );
    await killed;

    const settled = await Promise.all(ids.map((id) => settledOperation(api, id, 90_000)));
    for (const operation of settled) expect(operation).toMatchObject({ status: 'confirmed' });

    // Read straight from the chains: each recipient holds its amount once, no mint doubled.
    const unit = 10n ** BigInt(DECIMALS);
    const expected = (index: number) => BigInt(index + 1) * unit;
    const minted = (BigInt(MINTS) * BigInt(MINTS + 1) * unit) / 2n;

    const provider = evmReader(stack.chains.evmRpcUrl);
    const evmBalances = await Promise.all(
      recipients.base.map((holder) => readTokenBalance(provider, tokens.base, holder)),
    );
    expect(evmBalances).toEqual(recipients.base.map((_, index) => expected(index)));
    expect(await readTokenSupply(provider, tokens.base)).toBe(BigInt(INITIAL) * unit + minted);
    provider.destroy();

    const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    const mint = new PublicKey(tokens.solana);
    const solanaBalances = await Promise.all(
      recipients.solana.map(async (owner) => {
        const ata = getAssociatedTokenAddressSync(
          mint,
          new PublicKey(owner),
          true,
          TOKEN_2022_PROGRAM_ID,
        );
        return (await getAccount(connection, ata, 'confirmed', TOKEN_2022_PROGRAM_ID)).amount;
      }),
    );
    expect(solanaBalances).toEqual(recipients.solana.map((_, index) => expected(index)));
    const { supply } = await getMint(connection, mint, 'confirmed', TOKEN_2022_PROGRAM_ID);
    expect(supply).toBe(BigInt(INITIAL) * unit + minted);

    // The worker took the dead endpoints out (one line each), rather than failing operations.
    const takenOut = stack.workers[0]
      .output()
      .split('\n')
      .filter((line) => /RPC endpoint 0 \(http:\/\/127\.0\.0\.1:\d+\) failed/.test(line));
    expect(takenOut.some((line) => line.includes('solana RPC endpoint 0'))).toBe(true);
    expect(takenOut.some((line) => !line.includes('solana RPC endpoint 0'))).toBe(true);
  });

  it('keeps the chains usable through the API and shows each endpoint on /health', async () => {
    for (const network of CHAINS) {
      const read = await api.get(`/tokens/${tokens[network]}`);
      expect(summary(read)).toMatchObject({ status: 200 });
    }

    const health = await stack.http.get('/health');
    expect(summary(health)).toMatchObject({ status: 200, body: { data: { status: 'ok' } } });
    const chains = health.body.data.chains as {
      chain: string;
      status: string;
      endpoints: unknown[];
    }[];
    const endpointsOf = (chain: string) => chains.find((entry) => entry.chain === chain);
    for (const [chain, proxies] of [
      ['evm:31337', stack.proxies.evm],
      ['solana', stack.proxies.solana],
    ] as const) {
      expect(endpointsOf(chain)).toMatchObject({
        status: 'ok',
        endpoints: [
          {
            index: 0,
            url: proxies[0].url,
            state: 'cooling_down',
            last_error_at: expect.stringMatching(ISO_MS),
          },
          { index: 1, url: proxies[1].url, state: 'up', last_error_at: null },
        ],
      });
    }
  });
});
