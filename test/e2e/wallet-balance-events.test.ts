import { registerSession } from '@test/support/accounts';
import { setEvmBalance, setLamports } from '@test/support/chain-control';
import type { HttpClient } from '@test/support/http-client';
import { sample } from '@test/support/prometheus-text';
import { freePort } from '@test/support/service-process';
import { startServiceStack, type ServiceStack } from '@test/support/service-stack';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';

jest.setTimeout(240_000);

const LOW_TYPES = ['wallet.balance_low', 'wallet.balance_restored'];
const ETH = 1_000_000_000_000_000_000n;
const SOL = 1_000_000_000;

interface EventView {
  sequence: number;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A managed wallet falling below its network's threshold is announced once (feed, webhooks),
 * and once more when it is refunded, with two workers reading its balance. The wallets are
 * drained and refunded on the chains directly: anvil_setBalance, and the Solana localnet's
 * localnet_setLamports.
 */
describe('wallet balance events', () => {
  let stack: ServiceStack;
  let hooks: WebhookReceiver;
  let metricsUrl: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 1,
      env: {
        WALLET_BALANCE_CHECK_MS: '200',
        WALLET_LOW_BALANCE_BASE: '1',
        WALLET_LOW_BALANCE_SOLANA: '1',
        WEBHOOK_RETRY_BASE_MS: '200',
        WEBHOOK_SWEEP_INTERVAL_MS: '100',
      },
      chains: { slotMs: 50 },
    });
    // A second worker, serving its metrics: both read the balances and race to record them.
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    await stack.startWorker({ WORKER_METRICS_PORT: String(metricsPort) });
    hooks = await startWebhookReceiver();
  });

  afterAll(async () => {
    await hooks?.close();
    await stack?.stop();
  });

  const setWalletBalance = (address: string, wei: bigint) =>
    setEvmBalance(stack.chains.evmRpcUrl, address, wei);
  const setWalletLamports = (address: string, lamports: number) =>
    setLamports(stack.chains.solanaRpcUrl, address, lamports);

  /** An account with an API key and a webhook endpoint taking the wallet events. */
  async function newAccount(): Promise<{ session: HttpClient; api: HttpClient }> {
    const { session } = await registerSession(stack.http.baseUrl, 'funds');
    const key = await session.post('/account/api-keys', { name: 'funds' });
    expect(key.status).toBe(200);
    const endpoint = await session.post('/webhooks', { url: hooks.url, event_types: LOW_TYPES });
    expect(endpoint.status).toBe(200);
    return { session, api: stack.http.with({ 'api-key': key.body.data.key }) };
  }

  async function walletOf(session: HttpClient, family: string): Promise<Record<string, unknown>> {
    const listed = await session.get('/account/wallets');
    expect(listed.status).toBe(200);
    const wallets = listed.body.data.wallets as Record<string, unknown>[];
    return wallets.find((wallet) => wallet.network === family)!;
  }

  async function walletEvents(client: HttpClient): Promise<EventView[]> {
    const page = await client.get('/events?limit=1000');
    expect(page.status).toBe(200);
    return (page.body.data.events as EventView[]).filter((event) => LOW_TYPES.includes(event.type));
  }

  const hooksFor = (address: string, type: string) =>
    hooks.received.filter((hook) => hook.body.type === type && hook.body.data.address === address);

  /** Waits for the event by webhook, then lets a few more rounds pass to show it stays one. */
  async function expectAnnouncedOnce(address: string, type: string): Promise<void> {
    await hooks.until(() => hooksFor(address, type).length > 0, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hooksFor(address, type)).toHaveLength(1);
  }

  it('announces an EVM wallet drained below its threshold, and refunded', async () => {
    const { session, api } = await newAccount();
    const address = (await walletOf(session, 'evm')).public_key as string;
    // An operation makes the wallet one the monitor watches.
    const token = await api.post('/tokens', {
      network: 'base',
      name: 'Low',
      symbol: 'LOW',
      amount: 1,
    });
    expect(token.status).toBe(200);

    const funded = await walletOf(session, 'evm');
    expect(funded).toMatchObject({ low_balance: false, low_balance_threshold: '1.0' });

    await setWalletBalance(address, ETH / 2n);
    const drained = await walletOf(session, 'evm');
    expect(drained).toMatchObject({ balance: '0.5', low_balance: true });
    // 200k gas at the fee cap of the moment: fewer operations, but some, for half an ETH.
    expect(Number.isInteger(drained.estimated_operations_left)).toBe(true);
    expect(drained.estimated_operations_left).toBeGreaterThan(0);
    expect(drained.estimated_operations_left).toBeLessThan(
      funded.estimated_operations_left as number,
    );
    await expectAnnouncedOnce(address, 'wallet.balance_low');
    expect(hooksFor(address, 'wallet.balance_low')[0].body.data).toEqual({
      network: 'base',
      address,
      balance: '0.5',
      threshold: '1',
    });

    const balanceGauge = async () =>
      sample(await (await fetch(metricsUrl)).text(), 'ais_managed_wallet_balance', {
        network: 'base',
        address,
      });
    expect(await balanceGauge()).toBe(0.5);

    await setWalletBalance(address, 3n * ETH);
    expect(await walletOf(session, 'evm')).toMatchObject({ balance: '3.0', low_balance: false });
    await expectAnnouncedOnce(address, 'wallet.balance_restored');
    expect(hooksFor(address, 'wallet.balance_restored')[0].body.data).toEqual({
      network: 'base',
      address,
      balance: '3',
      threshold: '1',
    });

    const events = await walletEvents(api);
    expect(events.map((event) => event.type)).toEqual(LOW_TYPES);
    expect(events[0].data).toEqual(hooksFor(address, 'wallet.balance_low')[0].body.data);
  });

  it('announces a Solana wallet drained below its threshold, and refunded', async () => {
    const { session, api } = await newAccount();
    const address = (await walletOf(session, 'solana')).public_key as string;
    const token = await api.post('/tokens', {
      network: 'solana',
      name: 'Low',
      symbol: 'LOW',
      amount: 1,
    });
    expect(token.status).toBe(200);

    await setWalletLamports(address, SOL / 4);
    // An item mint: 2 signatures, rent of a 600-byte mint and a 170-byte token account.
    const itemMint = 2 * 5_000 + (128 + 600) * 6_960 + (128 + 170) * 6_960;
    expect(await walletOf(session, 'solana')).toMatchObject({
      balance: '0.25',
      low_balance: true,
      low_balance_threshold: '1.0',
      estimated_operations_left: Math.floor(SOL / 4 / itemMint),
    });
    await expectAnnouncedOnce(address, 'wallet.balance_low');
    expect(hooksFor(address, 'wallet.balance_low')[0].body.data).toEqual({
      network: 'solana',
      address,
      balance: '0.25',
      threshold: '1',
    });

    await setWalletLamports(address, 2 * SOL);
    expect(await walletOf(session, 'solana')).toMatchObject({
      low_balance: false,
      estimated_operations_left: Math.floor((2 * SOL) / itemMint),
    });
    await expectAnnouncedOnce(address, 'wallet.balance_restored');
    expect((await walletEvents(api)).map((event) => event.type)).toEqual(LOW_TYPES);
  });

  it('leaves an idle wallet alone, however low (the wallets view still shows it)', async () => {
    const { session, api } = await newAccount();
    const address = (await walletOf(session, 'evm')).public_key as string;
    await setWalletBalance(address, 0n);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await walletEvents(api)).toEqual([]);
    expect(await walletOf(session, 'evm')).toMatchObject({
      balance: '0.0',
      low_balance: true,
      estimated_operations_left: 0,
    });
  });
});
