import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { OperationStatus } from '@app/common';
import { createDataSource, OperationRepository, SettlementRepository } from '@app/database';
import { startLocalChains, type LocalChains } from '@app/localnet';
import { settledBatch } from '@test/support/airdrops';
import { scopeOf } from '@test/support/work-scope';
import { launchChromium } from '@test/support/browser';
import { setEvmBalance } from '@test/support/chain-control';
import { HttpClient } from '@test/support/http-client';
import { newOperationEntity } from '@test/support/operation-factory';
import { freePort, startServiceProcess, type ServiceProcess } from '@test/support/service-process';
import { startTestServices, type TestServices } from '@test/support/test-services';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';

jest.setTimeout(180_000);

const RESULTS = join(__dirname, '..', '..', 'test-results');
const PASSWORD = 'correct horse battery staple';
const FUNDS_MESSAGE =
  'Insufficient funds: 0xb0 holds 0 ETH on base; this write needs about 0.0002 ETH.';

/**
 * The dashboard as a person uses it, in headless Chromium, against the API started as its own
 * process on the local profile (real Postgres, Redis and local chains): register, issue a key,
 * copy it, use it, revoke it, sign out and in, and read the API's error messages in the forms.
 */
describe('dashboard in a real browser', () => {
  let services: TestServices;
  let chains: LocalChains;
  let apiProcess: ServiceProcess;
  let workerProcess: ServiceProcess;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let baseUrl: string;
  const email = `dashboard-${Date.now()}@example.com`;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [services, chains, browser] = await Promise.all([
      startTestServices(),
      startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0 }),
      launchChromium(),
    ]);
    const port = await freePort();
    const env = {
      APP_PROFILE: 'local',
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      API_PORT: String(port),
      LOCAL_EVM_RPC_URL: chains.evmRpcUrl,
      LOCAL_SOLANA_RPC_URL: chains.solanaRpcUrl,
      LOCAL_SOLANA_WS_URL: chains.solanaWsUrl,
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_MS: '400',
      WEBHOOK_SWEEP_INTERVAL_MS: '100',
    };
    [apiProcess, workerProcess, receiver] = await Promise.all([
      startServiceProcess('api', env, /API listening/),
      startServiceProcess('worker', env, /Worker ready/),
      // The first delivery fails, the next ones are taken: the log shows both attempts.
      startWebhookReceiver((_, index) => (index === 0 ? 503 : 200)),
    ]);
    baseUrl = `http://127.0.0.1:${port}`;
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    page = await context.newPage();
    // Uncaught script errors and anything the Content-Security-Policy blocked.
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) pageErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all([apiProcess?.stop(), workerProcess?.stop(), receiver?.close()]);
    await Promise.all([services?.stop(), chains?.stop()]);
  });

  it('serves the page with its security headers', async () => {
    const response = await new HttpClient(baseUrl).get('/dashboard');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const script = await new HttpClient(baseUrl).get('/dashboard/dashboard.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await new HttpClient(baseUrl).get('/dashboard/tsconfig.json')).status).toBe(404);
  });

  it('registers through the page and shows the managed wallets with their balances', async () => {
    await page.goto(`${baseUrl}/dashboard`);
    const form = page.locator('#register-form');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Create account' }).click();

    await page.locator('#signed-in').waitFor();
    expect(await page.locator('#session-email').textContent()).toBe(email);
    expect(await page.getByRole('status').textContent()).toMatch(/Account created/);

    const solana = page.locator('.wallet', { hasText: 'Solana wallet' });
    const evm = page.locator('.wallet', { hasText: 'EVM wallet' });
    await solana.locator('.balance').waitFor();
    expect(await solana.locator('.balance').textContent()).toBe('100.0 SOL');
    expect(await evm.locator('.balance').textContent()).toBe('100.0 ETH');
    expect(await evm.locator('.network').textContent()).toBe('base');
    expect(await evm.locator('.address').textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await solana.locator('.operations-left').textContent()).toMatch(
      /^About [\d,]+ operations left at today's fees$/,
    );
    expect(await page.locator('.wallet .badge.low').count()).toBe(0);

    await page.locator('#ops-empty').waitFor();
    expect(await page.locator('#ops-empty').textContent()).toBe('No operations yet.');
    await page.locator('#airdrops-empty').waitFor();
    expect(await page.locator('#airdrops-empty').textContent()).toBe('No airdrops yet.');
  });

  it('badges a wallet below its low-balance threshold, with the operations it has left', async () => {
    const evm = page.locator('.wallet', { hasText: 'EVM wallet' });
    const address = (await evm.locator('.address').textContent())!;
    const setBalance = (wei: bigint) => setEvmBalance(chains.evmRpcUrl, address, wei);
    const refresh = () =>
      page
        .locator('section[aria-labelledby="wallets-title"]')
        .getByRole('button', { name: 'Refresh' })
        .click();

    await setBalance(0n); // under the default threshold, 0.01 ETH
    await refresh();
    const badge = evm.locator('.badge.low');
    await badge.waitFor();
    expect(await badge.textContent()).toBe('Low balance');
    expect(await badge.getAttribute('title')).toBe(
      'Below 0.01 ETH: fund it to keep operations flowing',
    );
    expect(await evm.locator('.operations-left').textContent()).toBe(
      "About 0 operations left at today's fees",
    );
    expect(await page.locator('.wallet .badge.low').count()).toBe(1);

    await setBalance(100n * 10n ** 18n); // 100 ETH again
    await refresh();
    await evm.locator('.balance', { hasText: '100.0 ETH' }).waitFor();
    expect(await page.locator('.wallet .badge.low').count()).toBe(0);
  });

  it('issues a key shown once, which the copy button copies and the API accepts', async () => {
    await page.getByLabel('Key name').fill('browser key');
    await page.getByRole('button', { name: 'Issue API key' }).click();
    const shown = page.getByLabel('New API key');
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^ais_[A-Za-z0-9_-]{40,}$/);
    const row = page.locator('#keys-body tr', { hasText: 'browser key' });
    await row.waitFor();
    expect(await row.locator('code').textContent()).toBe(`${key.slice(0, 12)}…`);

    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'dashboard-key-issued.png'), fullPage: true });

    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('The API key copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    const wallet = await fetch(`${baseUrl}/wallets`, {
      method: 'POST',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ network: 'solana' }),
    });
    expect(wallet.status).toBe(200);
    expect(((await wallet.json()) as { success: boolean }).success).toBe(true);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /Revoke the key browser key/ }).click();
    await row.getByText('Revoked').waitFor();
    expect(await row.getByRole('button').count()).toBe(0);

    const refused = await fetch(`${baseUrl}/wallets`, {
      method: 'POST',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ network: 'solana' }),
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ success: false, message: 'Invalid api-key' });
  });

  it("shows the API's error messages in the forms, and signs out and in by keyboard", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#signed-out').waitFor();

    const register = page.locator('#register-form');
    await register.getByLabel('Email').fill(email.toUpperCase());
    await register.getByLabel('Password').fill('another long password');
    await register.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('An account with this email already exists.').waitFor();

    const login = page.locator('#login-form');
    await login.getByLabel('Email').fill(email);
    await login.getByLabel('Password').fill('not the password at all');
    await login.getByLabel('Password').press('Enter');
    const error = page.locator('#login-error');
    await error.getByText('Invalid email or password.').waitFor();
    expect(await error.getAttribute('role')).toBe('alert');

    await login.getByLabel('Password').fill(PASSWORD);
    await login.getByLabel('Password').press('Enter');
    await page.locator('#signed-in').waitFor();
    // The keys survive the new session, the revoked one marked as such.
    await page.locator('#keys-body tr', { hasText: 'browser key' }).getByText('Revoked').waitFor();
  });

  it("shows the account's activity from its audit trail, newest first", async () => {
    const rows = page.locator('#audit-body tr');
    await rows.nth(5).waitFor();
    const types = await rows.evaluateAll((found) =>
      found.map((row) => row.getAttribute('data-audit-type')),
    );
    expect(types).toEqual([
      'login.succeeded',
      'login.failed',
      'session.ended',
      'api_key.revoked',
      'api_key.issued',
      'account.created',
    ]);
    expect(await rows.nth(1).textContent()).toContain('Sign-in failed');
    expect(await rows.nth(3).textContent()).toMatch(/API key revoked.*browser key \(ais_/);
    expect(await rows.nth(5).textContent()).toContain(email);
  });

  it('charts the usage of the last day and week by status, with latency percentiles', async () => {
    await page.locator('#usage-pending', { hasText: 'Nothing pending now' }).waitFor();
    expect(await page.locator('#usage-pending').getAttribute('class')).toBe('badge');
    expect(await page.locator('#usage-pending-split').textContent()).toBe('');
    const dataSource = await createDataSource(services.databaseUrl).initialize();
    try {
      const [account] = await dataSource.query(`SELECT id FROM accounts WHERE email = $1`, [email]);
      const operations = new OperationRepository(dataSource);
      const mint = { kind: 'token.mint', asset: '0xa', amount: '1', recipient: '0xb' } as const;
      const at = (
        hoursAgo: number,
        status: OperationStatus,
        latencyMs = 0,
        network: 'base' | 'solana' = 'base',
      ) => {
        const createdAt = new Date(Date.now() - hoursAgo * 3_600_000);
        const settledAt = status === 'queued' ? null : new Date(createdAt.getTime() + latencyMs);
        const error =
          status === 'failed'
            ? { errorCode: 'INSUFFICIENT_FUNDS' as const, errorMessage: FUNDS_MESSAGE }
            : {};
        // Pending ones touched in the future: the live worker's reconciler re-enqueues an
        // unsettled operation untouched since its cutoff (all of them at once when the shared
        // Redis lost its jobs, as another suite's flush does), and would run these and fail them.
        const updatedAt = status === 'queued' ? new Date(Date.now() + 3_600_000) : createdAt;
        return operations.insert(
          scopeOf(dataSource.manager),
          newOperationEntity(account.id, mint, {
            status,
            createdAt,
            updatedAt,
            settledAt,
            network,
            ...error,
          }),
        );
      };
      await Promise.all([
        at(0, 'confirmed', 800),
        at(0, 'confirmed', 1_200),
        at(0, 'queued'),
        at(3, 'failed', 500),
        at(5, 'confirmed', 2_500),
        at(50, 'confirmed', 4_000),
        // Pending now though outside the day's chart (and, the second, the week's too).
        at(30, 'queued'),
        at(200, 'queued', 0, 'solana'),
      ]);
    } finally {
      await dataSource.destroy();
    }
    await page.reload();
    const chart = page.locator('#usage-chart svg');
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toBe(
      'Operations per hour over the last day: 3 confirmed, 1 failed, 1 pending; the busiest hour had 3.',
    );
    expect(await chart.locator('g.bar').count()).toBe(24);
    const latest = chart.locator('g.bar').last();
    expect(
      await latest
        .locator('rect')
        .evaluateAll((rects) => rects.map((r) => r.getAttribute('class'))),
    ).toEqual(['confirmed', 'pending']);
    expect(await page.locator('#usage-latency').textContent()).toBe(
      'Time to confirmation (3 confirmed): p50 1.2 s, p90 2.2 s, p99 2.5 s.',
    );
    const pendingNow = page.locator('#usage-pending');
    expect(await pendingNow.textContent()).toBe('3 pending now');
    expect(await pendingNow.getAttribute('class')).toBe('badge pending');
    expect(await page.locator('#usage-pending-split').textContent()).toBe('(base 2, solana 1)');
    mkdirSync(RESULTS, { recursive: true });
    await page.locator('#usage-chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, 'dashboard-usage-day.png'), fullPage: true });

    await page.getByRole('button', { name: 'Last week' }).click();
    await page
      .locator('#usage-chart svg[aria-label*="last week: 4 confirmed, 1 failed, 2 pending"]')
      .waitFor();
    expect(await page.locator('#usage-chart g.bar').count()).toBe(168);
    expect(await pendingNow.textContent()).toBe('3 pending now');
    expect(await page.getByRole('button', { name: 'Last week' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.screenshot({ path: join(RESULTS, 'dashboard-usage-week.png'), fullPage: true });
  });

  it('narrows the operations by status, network and kind, and shows one in full', async () => {
    const dataSource = await createDataSource(services.databaseUrl).initialize();
    let bumped: string;
    try {
      const [account] = await dataSource.query(`SELECT id FROM accounts WHERE email = $1`, [email]);
      const operations = new OperationRepository(dataSource);
      const burn = { kind: 'token.burn', asset: '0xa', amount: '2' } as const;
      const operation = newOperationEntity(account.id, burn, { details: { amount: '2' } });
      bumped = operation.id;
      await operations.insert(scopeOf(dataSource.manager), operation);
      await operations.markSignedMany(
        scopeOf(dataSource.manager),
        [{ id: operation.id, nonce: 4n, signedTx: '0x01', txHash: `0x${'1'.repeat(64)}` }],
        { maxFeePerGas: '100' },
      );
      await operations.markSubmitted(operation.id);
      await operations.replaceSigned(operation.id, `0x${'1'.repeat(64)}`, {
        signedTx: '0x02',
        txHash: `0x${'2'.repeat(64)}`,
        fees: { maxFeePerGas: '125' },
      });
      await operations.markSubmitted(operation.id);
      await new SettlementRepository(dataSource).confirm(operation.id, {}, { kind: 'none' });
    } finally {
      await dataSource.destroy();
    }
    await page.reload();
    const rows = page.locator('#ops-body tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(9);

    await page.getByLabel('Status').selectOption('failed');
    await page.locator('#ops-body tr:only-child').waitFor();
    expect(await rows.first().textContent()).toContain('failed');
    // Its error once: a message that begins with the error's name is not prefixed with it again.
    await rows
      .first()
      .getByRole('button', { name: /Details of the token.mint operation/ })
      .click();
    const failedDialog = page.getByRole('dialog');
    await failedDialog.locator('#op-detail-body p.form-error').waitFor();
    expect(await failedDialog.locator('#op-detail-body p.form-error').textContent()).toBe(
      FUNDS_MESSAGE,
    );
    await failedDialog.getByRole('button', { name: 'Close' }).click();
    await failedDialog.waitFor({ state: 'hidden' });
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Kind').selectOption('token.burn');
    await page.locator(`#ops-body tr[data-operation-id="${bumped}"]:only-child`).waitFor();
    await page.getByLabel('Network').selectOption('solana');
    await page.locator('#ops-empty').waitFor();
    await page.getByLabel('Network').selectOption('');

    await rows
      .first()
      .getByRole('button', { name: /Details of the token.burn operation/ })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading', { level: 2 }).textContent()).toBe(
      `token.burn · ${bumped}`,
    );
    const versions = dialog.locator('table.transactions tbody tr');
    expect(await versions.count()).toBe(2);
    expect(await versions.nth(0).textContent()).toContain('maxFeePerGas 100');
    expect(await versions.nth(1).textContent()).toMatch(/maxFeePerGas 125.*Landed/);
    expect(JSON.parse((await dialog.locator('pre.request').textContent()) ?? '')).toEqual({
      intent: { kind: 'token.burn', asset: '0xa', amount: '2' },
      details: { amount: '2' },
    });
    expect(
      await dialog
        .locator('ol.events li')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-event-type'))),
    ).toEqual([
      'operation.queued',
      'operation.submitted',
      'operation.submitted',
      'operation.confirmed',
    ]);
    expect(await dialog.getByText('None: no endpoint takes these events.').count()).toBe(1);
    await page.screenshot({
      path: join(RESULTS, 'dashboard-operation-detail.png'),
      fullPage: true,
    });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByLabel('Kind').selectOption('');
  });

  it('pages recent operations with More, and shows none where the endpoint is missing', async () => {
    // The operations themselves come from the chain pipeline; here the page's side of the
    // contract is checked against answers of the documented shape.
    const operation = (id: string, status: string, tx: string | null) => ({
      operation_id: id,
      kind: 'token.create',
      network: 'solana',
      status,
      tx,
      created_at: new Date().toISOString(),
    });
    const cursors: (string | null)[] = [];
    await page.route('**/account/operations?*', async (route) => {
      const url = new URL(route.request().url());
      expect(url.searchParams.get('limit')).toBe('20');
      const cursor = url.searchParams.get('cursor');
      cursors.push(cursor);
      const data = cursor
        ? { operations: [operation('op-3', 'failed', null)], next_cursor: null }
        : {
            operations: [
              operation('op-1', 'confirmed', '5'.repeat(88)),
              operation('op-2', 'submitted', `0x${'ab'.repeat(32)}`),
            ],
            next_cursor: 'opaque/+cursor',
          };
      await route.fulfill({ json: { success: true, data, message: 'Operations.' } });
    });
    // Off the local profile, a network's explorer templates turn hashes into links.
    await page.route('**/networks', (route) =>
      route.fulfill({
        json: {
          success: true,
          message: 'Networks.',
          data: {
            networks: [
              {
                network: 'solana',
                explorer_tx_url: 'https://explorer.solana.com/tx/{tx}?cluster=devnet',
                explorer_address_url: null,
              },
            ],
          },
        },
      }),
    );
    await page.reload();
    const rows = page.locator('#ops-body tr');
    await rows.nth(1).waitFor();
    expect(await rows.nth(0).locator('.badge').textContent()).toBe('confirmed');
    expect(await rows.nth(0).locator('a.explorer').getAttribute('href')).toBe(
      `https://explorer.solana.com/tx/${'5'.repeat(88)}?cluster=devnet`,
    );
    expect(await rows.nth(0).locator('a.explorer').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await rows.nth(0).locator('.tx').getAttribute('title')).toBe('5'.repeat(88));
    await page.getByRole('button', { name: 'More' }).click();
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(2).textContent()).toContain('failed');
    expect(await page.getByRole('button', { name: 'More' }).isHidden()).toBe(true);
    expect(cursors).toEqual([null, 'opaque/+cursor']);

    await page.unroute('**/account/operations?*');
    await page.unroute('**/networks');
    await page.route('**/account/operations?*', (route) =>
      route.fulfill({
        status: 404,
        json: { success: false, error: 'Not found', message: 'No route', timestamp: '' },
      }),
    );
    await page.reload();
    await page.locator('#ops-empty').waitFor();
    expect(await page.locator('#ops-table').isHidden()).toBe(true);
    expect(await page.locator('#ops-error').textContent()).toBe('');
    await page.unroute('**/account/operations?*');
  });

  it('adds a webhook endpoint with its secret shown once, tests it and shows each attempt', async () => {
    const card = page.locator('section[aria-labelledby="webhooks-title"]');
    await card.getByLabel('Endpoint URL').fill(receiver.url);
    await card.getByLabel('Description').fill('billing backend');
    await card.getByLabel('operation.confirmed').check();
    await card.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.getByLabel('Signing secret');
    await secret.waitFor();
    expect(await secret.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = card.locator('#webhooks-body tr', { hasText: receiver.url });
    await row.waitFor();
    expect(await row.textContent()).toContain('operation.confirmed');
    expect(await row.locator('.badge').textContent()).toBe('Enabled');
    await card.getByRole('button', { name: 'I have stored it' }).click();
    expect(await secret.isHidden()).toBe(true);

    await row.getByRole('button', { name: 'Send a test ping to billing backend' }).click();
    await receiver.until((received) => received.some((hook) => hook.answered === 200), 15_000);
    expect(receiver.received.map((hook) => hook.body.type)).toEqual(['ping', 'ping']);
    await card.getByRole('button', { name: 'Refresh' }).click();
    const delivery = card.locator('#deliveries-body tr[data-status="succeeded"]');
    await delivery.waitFor();
    await delivery.getByText('2 attempts').click();
    const attempts = delivery.locator('ol.attempts li');
    expect(await attempts.count()).toBe(2);
    expect(await attempts.nth(0).textContent()).toContain('HTTP 503');
    expect(await attempts.nth(1).textContent()).toContain('HTTP 200');
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'dashboard-webhooks.png'), fullPage: true });

    await row.getByRole('button', { name: 'Disable billing backend' }).click();
    await row.locator('.badge', { hasText: 'Disabled' }).waitFor();
    expect(await row.getByRole('button', { name: /Send a test ping/ }).count()).toBe(0);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete billing backend' }).click();
    await card.locator('#webhooks-empty').waitFor();
    expect(await card.locator('#deliveries').isHidden()).toBe(true);
  });

  it('edits the signing policies, showing each problem the service names', async () => {
    const card = page.locator('section[aria-labelledby="policies-title"]');
    const editor = card.getByLabel('Policy (JSON)');
    const save = card.getByRole('button', { name: 'Save policies' });
    const shown = async (text: string) => {
      for (const deadline = Date.now() + 10_000; (await editor.inputValue()) !== text;) {
        if (Date.now() > deadline) throw new Error(`The editor shows ${await editor.inputValue()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await shown('{}');
    await editor.fill('{ "max_fee_gwei": { "solana": 1 } }');
    await save.click();
    await card.locator('#policy-error', { hasText: 'max_fee_gwei.solana' }).waitFor();

    await editor.fill(
      '{ "max_fee_gwei": { "evm": 40 }, "daily_native_cap": { "solana": "2.50" } }',
    );
    await save.click();
    // Shown as the service stored it: the evm alias resolved, the amount canonical.
    const stored = { max_fee_gwei: { base: 40 }, daily_native_cap: { solana: '2.5' } };
    await shown(JSON.stringify(stored, null, 2));
    expect(await card.locator('#policy-error').textContent()).toBe('');
    await page.reload();
    await shown(JSON.stringify(stored, null, 2));

    await editor.fill('{}');
    await save.click();
    await shown('{}');
  });

  it("shows the account's tokens and collections, and a collection's items with images and history", async () => {
    const images = await startImageServer();
    try {
      const issued = await page.request.post(`${baseUrl}/account/api-keys`, {
        data: { name: 'assets' },
      });
      const key = ((await issued.json()) as { data: { key: string } }).data.key;
      const api = new HttpClient(baseUrl).with({ 'api-key': key });
      const token = await api.post('/tokens', {
        network: 'solana',
        name: 'Console Coin',
        symbol: 'CON',
        amount: '1000',
      });
      expect(token.body).toMatchObject({ success: true });
      const created = await api.post('/nfts', {
        network: 'base',
        name: 'Console Art',
        symbol: 'ART',
        description: 'seen in the console',
        images: [images.url('cover.png')],
        seller_fee: 500,
        max_supply: 10,
      });
      expect(created.body).toMatchObject({ success: true });
      const collection: string = created.body.data.mint_address;
      const ids: string[] = [];
      for (const name of ['First', 'Second']) {
        const minted = await api.post(`/nfts/${collection}/mint`, {
          name,
          images: [images.url(`${name}.png`)],
        });
        expect(minted.body).toMatchObject({ success: true });
        ids.push(minted.body.data.token_id);
      }
      const moved = await api.post(`/nfts/${collection}/transfer`, {
        recipient: '0x1111111111111111111111111111111111111111',
        token_id: ids[0],
      });
      expect(moved.body).toMatchObject({ success: true });

      await page.reload();
      const card = page.locator('section[aria-labelledby="assets-title"]');
      const art = card.locator(`#assets-body tr[data-asset="${collection}"]`);
      await art.waitFor();
      expect(await art.locator('.amount').textContent()).toBe('2 / 10 minted');
      expect(await art.textContent()).toContain('5.00 %');
      const coin = card.locator('#assets-body tr[data-kind="token"]');
      expect(await coin.locator('.amount').textContent()).toBe('1000');
      await card.getByLabel('Show').selectOption('token');
      await card.locator('#assets-body tr[data-kind="collection"]').waitFor({ state: 'detached' });
      await card.getByLabel('Show').selectOption('');
      await art.waitFor();

      await art.getByRole('button', { name: 'Items of Console Art' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      const first = dialog.locator(`li.item[data-token-id="${ids[0]}"]`);
      await first.waitFor();
      expect(
        await first
          .locator('ol.changes > li')
          .evaluateAll((items) => items.map((item) => item.getAttribute('data-kind'))),
      ).toEqual(['nft.mint', 'nft.transfer']);
      expect(await first.textContent()).toContain('held by 0x1111…111111');
      const image = first.locator('img.thumb');
      // The image really loaded (the page's Content-Security-Policy lets it in).
      await page.waitForFunction(
        `document.querySelector('li.item[data-token-id="${ids[0]}"] img.thumb')?.naturalWidth === 1`,
      );
      expect(await image.getAttribute('alt')).toBe('First');
      expect(images.served()).toEqual(expect.arrayContaining(['/First.png', '/Second.png']));
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, 'dashboard-assets.png'), fullPage: true });
      await dialog.getByRole('button', { name: 'Close' }).click();
    } finally {
      await images.close();
    }
  });

  it('shows each airdrop with a progress bar that follows it to its end, and its failed entries', async () => {
    const issued = await page.request.post(`${baseUrl}/account/api-keys`, {
      data: { name: 'airdrops' },
    });
    const key = ((await issued.json()) as { data: { key: string } }).data.key;
    const api = new HttpClient(baseUrl).with({ 'api-key': key });
    const token = await api.post('/tokens', {
      network: 'base',
      name: 'Drop Coin',
      symbol: 'DROP',
      amount: '1000',
      decimals: 0,
    });
    expect(token.body).toMatchObject({ success: true });
    const mint: string = token.body.data.mint_address;
    const recipients = Array.from({ length: 20 }, () => Wallet.createRandom().address);
    const entries = recipients.map((recipient, i) => ({ recipient, amount: String(i + 1) }));
    /** The batches the page asked GET /batches/{id} for, in order. */
    const polled: string[] = [];
    const onRequest = (request: { url(): string }) => {
      const match = /^\/batches\/([^/]+)$/.exec(new URL(request.url()).pathname);
      if (match) polled.push(match[1]);
    };
    page.on('request', onRequest);
    const card = page.locator('section[aria-labelledby="airdrops-title"]');

    // One that completes, shown at once: the page follows it if it is still open.
    const whole = await api.post(`/tokens/${mint}/airdrop`, { recipients: entries });
    expect(whole.status).toBe(202);
    const wholeId: string = whole.body.data.batch_id;
    await card.getByRole('button', { name: 'Refresh' }).click();
    const wholeRow = card.locator(`#airdrops-body tr[data-batch-id="${wholeId}"]`);
    const wholeBar = wholeRow.getByRole('progressbar', { name: /^Progress of the token\.airdrop/ });
    await wholeRow.locator('[role="progressbar"][aria-valuenow="20"]').waitFor();
    expect(await wholeBar.getAttribute('aria-valuemax')).toBe('20');
    expect(await wholeBar.getAttribute('aria-valuetext')).toBe('20 of 20 confirmed');
    expect(await wholeRow.locator('.progress-text').textContent()).toBe('20 of 20 confirmed');
    expect(await wholeRow.locator('.badge').textContent()).toBe('completed');
    expect(await wholeRow.textContent()).toMatch(/token\.airdrop.*base/);
    expect(await wholeRow.getByRole('button', { name: /Failed entries/ }).count()).toBe(0);

    // One with a bad entry: the supply already minted plus 2^256 - 1 overflows, so the chain
    // reverts entry 7's mint (its carrier is split until it stands alone) and the rest land.
    const overflowing = entries.map((entry, i) =>
      i === 7 ? { ...entry, amount: (2n ** 256n - 1n).toString() } : entry,
    );
    const partial = await api.post(`/tokens/${mint}/airdrop`, { recipients: overflowing });
    expect(partial.status).toBe(202);
    const partialId: string = partial.body.data.batch_id;
    expect(await settledBatch(api, partialId)).toMatchObject({
      status: 'completed_with_failures',
      counts: { queued: 0, submitted: 0, confirmed: 19, failed: 1 },
    });

    // The list as it stood while that one ran, a batch a page: the page follows the open one
    // with GET /batches/{id} (the real, settled view) and leaves the settled one alone.
    const cursors: (string | null)[] = [];
    await page.route('**/account/batches?*', async (route) => {
      const url = new URL(route.request().url());
      const cursor = url.searchParams.get('cursor');
      cursors.push(cursor);
      url.searchParams.delete('cursor');
      const real = (await (await route.fetch({ url: url.toString() })).json()) as {
        data: { batches: object[] };
      };
      const [newest, older] = real.data.batches;
      const counts = { queued: 8, submitted: 2, confirmed: 9, failed: 1 };
      const running = { ...newest, status: 'running', counts, completed_at: undefined };
      const data = cursor
        ? { batches: [older], next_cursor: null }
        : { batches: [running], next_cursor: 'page/2' };
      await route.fulfill({ json: { success: true, data, message: 'Batches.' } });
    });
    polled.length = 0;
    await page.reload();
    const partialRow = card.locator(`#airdrops-body tr[data-batch-id="${partialId}"]`);
    const partialBar = partialRow.getByRole('progressbar');
    await partialRow.waitFor();
    expect(await partialBar.getAttribute('aria-valuetext')).toBe('9 of 20 confirmed, 1 failed');
    expect(await partialBar.getAttribute('aria-valuenow')).toBe('10');
    expect(await partialRow.locator('.badge').textContent()).toBe('running');
    expect(await wholeRow.count()).toBe(0);
    await card.getByRole('button', { name: 'More' }).click();
    await wholeRow.waitFor();
    expect(await card.getByRole('button', { name: 'More' }).isHidden()).toBe(true);
    expect(cursors).toEqual([null, 'page/2']);

    await partialRow.locator('[role="progressbar"][aria-valuenow="20"]').waitFor();
    expect(await partialBar.getAttribute('aria-valuemax')).toBe('20');
    expect(await partialBar.getAttribute('aria-valuetext')).toBe('19 of 20 confirmed, 1 failed');
    expect(await partialRow.locator('.progress-text').textContent()).toBe(
      '19 of 20 confirmed, 1 failed',
    );
    expect(await partialRow.locator('.badge').textContent()).toBe('completed with failures');
    await page
      .getByRole('status')
      .getByText('Airdrop completed with failures: 19 of 20 confirmed, 1 failed.')
      .waitFor();
    // Settled: asked no more (a poll is due every 2.5 s while open), and the other never.
    await page.waitForTimeout(4_000);
    expect(polled).toEqual([partialId]);
    page.off('request', onRequest);

    await partialRow.getByRole('button', { name: /^Failed entries of the token\.airdrop/ }).click();
    const failures = card.locator('#airdrop-failures');
    const failed = failures.locator('#failures-body tr');
    await failed.first().waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('failures-title');
    expect(await failures.getByRole('heading', { level: 3 }).textContent()).toMatch(
      /^Failed entries of the token\.airdrop of .* \(19 of 20 confirmed, 1 failed\)$/,
    );
    expect(await failed.count()).toBe(1);
    expect(await failed.first().getAttribute('data-index')).toBe('7');
    expect(await failed.first().locator('td').first().textContent()).toBe('#7');
    expect(await failed.first().locator('code').textContent()).toBe(recipients[7]);
    expect(await failed.first().locator('td.error-text').textContent()).toMatch(
      /^Bad gateway: The contract reverted the transaction/,
    );
    mkdirSync(RESULTS, { recursive: true });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, 'dashboard-airdrops.png'), fullPage: true });

    const operationId = await failed.first().getAttribute('data-operation-id');
    await failed.first().getByRole('button', { name: 'Details of entry #7' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading', { level: 2 }).textContent()).toBe(
      `token.mint · ${operationId}`,
    );
    expect(await dialog.locator('.facts').textContent()).toContain('failed');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await failures.getByRole('button', { name: 'Hide' }).click();
    expect(await failures.isHidden()).toBe(true);
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toMatch(
      /^Failed entries of the token\.airdrop/,
    );
    await page.unroute('**/account/batches?*');
  });

  it('lists a wallet whose chain is down with no balance instead of failing', async () => {
    await chains.stop();
    await page
      .locator('section[aria-labelledby="wallets-title"]')
      .getByRole('button', { name: 'Refresh' })
      .click();
    const unavailable = page.locator('.wallet .balance.unavailable');
    await unavailable.first().waitFor();
    expect(await unavailable.count()).toBe(2);
    expect(await page.locator('.wallet .address').count()).toBe(2);
    expect(pageErrors).toEqual([]);
  });
});

/** A PNG of one pixel, as an asset's image server would host one. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

async function startImageServer() {
  const served: string[] = [];
  const server = createServer((request, response) => {
    served.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (file: string) => `http://127.0.0.1:${port}/${file}`,
    served: () => [...served],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
