import { Injectable } from '@nestjs/common';
import { AppError, type AssetIntent } from '@app/common';
import { NetworkRegistry } from '@app/chains';
import {
  OperationSubmitter,
  type IdempotencyRequest,
  type Submitted,
} from '../operations/operation-submitter';
import { AssetLocator } from './asset-locator';
import type { CreateTokenInput, TokenAmountInput } from './asset-inputs';
import { fromBaseUnits, toChainUnits } from './amounts';
import { MetadataDocuments } from './metadata-documents';

const DEFAULT_DECIMALS = { solana: 9, evm: 18 } as const;

/** Fungible tokens: create, mint, burn, transfer (each an operation). */
@Injectable()
export class TokenService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly locator: AssetLocator,
    private readonly submitter: OperationSubmitter,
    private readonly metadata: MetadataDocuments,
  ) {}

  async create(accountId: string, input: CreateTokenInput, idempotency?: IdempotencyRequest) {
    const network = this.networks.resolve(input.network);
    const decimals = input.decimals ?? DEFAULT_DECIMALS[network.family];
    const initialSupply = toChainUnits(input.amount, decimals, network.family);
    const document = this.metadata.prepare(accountId, {
      name: input.name,
      symbol: input.symbol,
      description: input.description,
      image: input.image,
      external_url: input.website,
      seller_fee_basis_points: input.seller_fee,
      decimals,
    });
    return this.submitter.submit(
      {
        accountId,
        network,
        signer: await this.locator.managedWallet(accountId, network.family),
        intent: {
          kind: 'token.create',
          name: input.name,
          symbol: input.symbol,
          decimals,
          initialSupply: initialSupply.toString(),
          metadataUri: document.uri,
        },
        details: {
          description: input.description,
          image: input.image,
          website: input.website,
          seller_fee: input.seller_fee,
          amount: fromBaseUnits(initialSupply, decimals),
        },
        metadata: document.row,
      },
      idempotency,
    );
  }

  mint(accountId: string, mint: string, input: TokenAmountInput, idempotency?: IdempotencyRequest) {
    return this.amountOperation(accountId, mint, input, 'token.mint', idempotency);
  }

  burn(accountId: string, mint: string, input: TokenAmountInput, idempotency?: IdempotencyRequest) {
    return this.amountOperation(accountId, mint, input, 'token.burn', idempotency);
  }

  transfer(
    accountId: string,
    mint: string,
    input: TokenAmountInput,
    idempotency?: IdempotencyRequest,
  ) {
    if (!input.recipient) throw AppError.badRequest('recipient is required.');
    return this.amountOperation(accountId, mint, input, 'token.transfer', idempotency);
  }

  private async amountOperation(
    accountId: string,
    mint: string,
    input: TokenAmountInput,
    kind: 'token.mint' | 'token.burn' | 'token.transfer',
    idempotency?: IdempotencyRequest,
  ): Promise<Submitted> {
    const { asset, network } = await this.locator.ownAsset(accountId, 'token', mint, input.network);
    const signer = await this.locator.managedWallet(accountId, network.family);
    if (kind === 'token.mint' && asset.owner !== signer) {
      throw new AppError(
        'FORBIDDEN',
        'The managed wallet is not the mint authority of this token.',
      );
    }
    const decimals = asset.decimals ?? 0;
    const amount = toChainUnits(input.amount, decimals, network.family).toString();
    const recipient =
      kind === 'token.burn'
        ? undefined
        : this.locator.recipient(network, input.recipient ?? signer, [
            { address: asset.address, what: 'token' },
          ]);
    // Solana's checked instructions carry the decimals; EVM intents stay as they were.
    const solana = network.family === 'solana' ? { decimals } : {};
    const intent: AssetIntent =
      kind === 'token.burn'
        ? { kind, asset: asset.address, amount, ...solana }
        : { kind, asset: asset.address, amount, recipient: recipient!, ...solana };
    return this.submitter.submit(
      {
        accountId,
        network,
        signer,
        intent,
        details: { amount: fromBaseUnits(BigInt(amount), decimals), decimals },
      },
      idempotency,
    );
  }
}
