import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig, type ChainFamily } from '@app/config';
import { ok, type SuccessEnvelope } from '@app/common';
import { NetworkRegistry } from '@app/chains';
import { AccountService, TypicalOperationCosts, WalletQueries } from '@app/domain';
import { AccountId, SessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { arrayOf, strictObject } from '../http/docs/schema';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { ACCOUNT_WALLET_VIEW } from './account.schema';
import { presentWallet } from '../wallets/wallet.presenter';
import { presentWalletFunds, type WalletFundsView } from './wallet-funds.presenter';

export interface AccountWalletView extends WalletFundsView {
  network: ChainFamily;
  /** The concrete network the balance was read on (`evm` is the deployment's default). */
  resolved_network: string;
  public_key: string;
  /** Native units, decimal string; null when the chain did not answer in time. */
  balance: string | null;
  currency: string;
}

/** A balance the dashboard waits for longer than this is shown as unavailable. */
const BALANCE_WAIT_MS = 4_000;

/** The dashboard's view of the account's managed wallets, with live balances. */
@ApiTags('account')
@ApiCookieAuth(SESSION_SCHEME)
@SessionAuth()
@Controller('account')
export class AccountWalletsController {
  private readonly logger = new Logger(AccountWalletsController.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountService,
    private readonly wallets: WalletQueries,
    private readonly networks: NetworkRegistry,
    private readonly costs: TypicalOperationCosts,
  ) {}

  @Get('wallets')
  @ApiEnvelope(
    'The managed Solana and EVM wallets with their balances (null when a chain is down)',
    strictObject({ wallets: arrayOf(ACCOUNT_WALLET_VIEW) }),
    [401],
  )
  async list(
    @AccountId() accountId: string,
  ): Promise<SuccessEnvelope<{ wallets: AccountWalletView[] }>> {
    const account = await this.accounts.profile(accountId);
    const wallets = await Promise.all(
      account.wallets.map((wallet) => this.withBalance(accountId, wallet)),
    );
    return ok({ wallets }, 'Managed wallets.');
  }

  /** A chain that is down must not fail the page: its wallet is listed with a null balance. */
  private async withBalance(
    accountId: string,
    wallet: { family: ChainFamily; address: string },
  ): Promise<AccountWalletView> {
    const definition = this.networks.resolve(wallet.family);
    const base = {
      network: wallet.family,
      resolved_network: definition.network,
      public_key: wallet.address,
      currency: definition.currency.symbol,
    };
    const funds = (balance: bigint | null, cost: bigint | null) =>
      presentWalletFunds(
        balance,
        this.config.walletFunds.lowBalance[definition.network],
        cost,
        definition.currency.decimals,
      );
    // Without a cost the page still shows the balance; only the estimate is left out.
    const cost = bounded(this.costs.of(definition), BALANCE_WAIT_MS).catch(() => null);
    try {
      // A person refreshing the page asks for the chain as it is now, not the cache's answer.
      const read = await bounded(
        this.wallets.get(accountId, wallet.address, undefined, true),
        BALANCE_WAIT_MS,
      );
      const view = presentWallet(read);
      return {
        ...base,
        resolved_network: view.network,
        balance: view.balance,
        ...funds(read.balance.value, await cost),
      };
    } catch (error) {
      this.logger.warn(`No balance for ${definition.network} ${wallet.address}: ${String(error)}`);
      return { ...base, balance: null, ...funds(null, null) };
    }
  }
}

function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
