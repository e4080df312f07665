import { AccountsKeysWallets1763800000000 } from './1763800000000-accounts-keys-wallets.migration';
import { OperationsAssets1763900000000 } from './1763900000000-operations-assets.migration';
import { SolanaOperations1764000000000 } from './1764000000000-solana-operations.migration';
import { OperationTransactions1765000000000 } from './1765000000000-operation-transactions.migration';
import { OperationRetries1765100000000 } from './1765100000000-operation-retries.migration';
import { AuditEvents1765200000000 } from './1765200000000-audit-events.migration';
import { AccountEvents1765300000000 } from './1765300000000-account-events.migration';
import { Webhooks1765400000000 } from './1765400000000-webhooks.migration';
import { OperationEventsIndex1765600000000 } from './1765600000000-operation-events-index.migration';
import { ItemOperationsIndex1765610000000 } from './1765610000000-item-operations-index.migration';
import { EventDeliveriesIndex1765620000000 } from './1765620000000-event-deliveries-index.migration';
import { AccountPendingIndex1765800000000 } from './1765800000000-account-pending-index.migration';
import { WalletFunds1765930000000 } from './1765930000000-wallet-funds.migration';
import { NewMintSecret1765940000000 } from './1765940000000-new-mint-secret.migration';
import { Transactions1766000000000 } from './1766000000000-transactions.migration';
import { Airdrops1766100000000 } from './1766100000000-airdrops.migration';
import { BatchUnsettledMembers1766200000000 } from './1766200000000-batch-unsettled-members.migration';
import { CarrierSigningOneWrite1766300000000 } from './1766300000000-carrier-signing-one-write.migration';
import { MembersRideTheirCarrier1766400000000 } from './1766400000000-members-ride-their-carrier.migration';
import { AccountEventsByStatement1766500000000 } from './1766500000000-account-events-by-statement.migration';
import { TokenHeldWalletKeys1766600000000 } from './1766600000000-token-held-wallet-keys.migration';
import { WalletDataKeys1766700000000 } from './1766700000000-wallet-data-keys.migration';
import { SigningPolicies1766800000000 } from './1766800000000-signing-policies.migration';
import { NativeSpendPerOperation1766900000000 } from './1766900000000-native-spend-per-operation.migration';
import { LeanOperationEvents1767000000000 } from './1767000000000-lean-operation-events.migration';
import { SmallerAccountEvents1767100000000 } from './1767100000000-smaller-account-events.migration';
import { OperationUpdatesInPlace1767200000000 } from './1767200000000-operation-updates-in-place.migration';
import { SignedTransactionsAsBytes1767300000000 } from './1767300000000-signed-transactions-as-bytes.migration';
import { SubmittedInPlace1767400000000 } from './1767400000000-submitted-in-place.migration';
import { FewerIndexEntries1767500000000 } from './1767500000000-fewer-index-entries.migration';
import { NewMintSecretsUntilSettled1767600000000 } from './1767600000000-new-mint-secrets-until-settled.migration';
import { ChainKeysPinned1767700000000 } from './1767700000000-chain-keys-pinned.migration';
import { SettledEventsFromTheirRow1767800000000 } from './1767800000000-settled-events-from-their-row.migration';
import { OperationPagesWithRoom1767900000000 } from './1767900000000-operation-pages-with-room.migration';
import { CompactAuditLinks1768000000000 } from './1768000000000-compact-audit-links.migration';
import { NewMintSecretsAmongUnsettled1768100000000 } from './1768100000000-new-mint-secrets-among-unsettled.migration';
import { NewMintAddressFromTheRow1768200000000 } from './1768200000000-new-mint-address-from-the-row.migration';

/** Every migration, oldest first. Schema changes only ever land here (never `synchronize`). */
export const MIGRATIONS = [
  AccountsKeysWallets1763800000000,
  OperationsAssets1763900000000,
  SolanaOperations1764000000000,
  OperationTransactions1765000000000,
  OperationRetries1765100000000,
  AuditEvents1765200000000,
  AccountEvents1765300000000,
  Webhooks1765400000000,
  OperationEventsIndex1765600000000,
  ItemOperationsIndex1765610000000,
  EventDeliveriesIndex1765620000000,
  AccountPendingIndex1765800000000,
  WalletFunds1765930000000,
  NewMintSecret1765940000000,
  Transactions1766000000000,
  Airdrops1766100000000,
  BatchUnsettledMembers1766200000000,
  CarrierSigningOneWrite1766300000000,
  MembersRideTheirCarrier1766400000000,
  AccountEventsByStatement1766500000000,
  TokenHeldWalletKeys1766600000000,
  WalletDataKeys1766700000000,
  SigningPolicies1766800000000,
  NativeSpendPerOperation1766900000000,
  LeanOperationEvents1767000000000,
  SmallerAccountEvents1767100000000,
  OperationUpdatesInPlace1767200000000,
  SignedTransactionsAsBytes1767300000000,
  SubmittedInPlace1767400000000,
  FewerIndexEntries1767500000000,
  NewMintSecretsUntilSettled1767600000000,
  ChainKeysPinned1767700000000,
  SettledEventsFromTheirRow1767800000000,
  OperationPagesWithRoom1767900000000,
  CompactAuditLinks1768000000000,
  NewMintSecretsAmongUnsettled1768100000000,
  NewMintAddressFromTheRow1768200000000,
];
