import { Connection, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getAssociatedTokenAddressSync,
  getMint,
  unpackAccount,
} from '@solana/spl-token';
import { Contract } from 'ethers';
import { assetTokenArtifact } from '@app/chains';
import { evmReader } from '@test/support/chain-reads';

/** What the chain itself says of one token: each recipient's balance and the total supply. */
export interface ChainTruth {
  /** Balance in base units by recipient address as the client sent it. */
  balances: Map<string, bigint>;
  supply: bigint;
}

/** ERC-20 balanceOf of every recipient, read from anvil directly (no proxy, no service). */
export async function evmTruth(
  rpcUrl: string,
  token: string,
  recipients: string[],
): Promise<ChainTruth> {
  const provider = evmReader(rpcUrl);
  try {
    const contract = new Contract(token, assetTokenArtifact.abi, provider);
    const balances = new Map<string, bigint>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < recipients.length) {
          const recipient = recipients[next++];
          balances.set(recipient, (await contract.balanceOf(recipient)) as bigint);
        }
      }),
    );
    return { balances, supply: (await contract.totalSupply()) as bigint };
  } finally {
    provider.destroy();
  }
}

/**
 * The balance of every recipient's associated Token-2022 account (0 where there is none), read
 * from the local validator directly, 100 accounts a call.
 */
export async function solanaTruth(
  rpcUrl: string,
  mint: string,
  recipients: string[],
): Promise<ChainTruth> {
  const connection = new Connection(rpcUrl, { commitment: 'confirmed' });
  const mintKey = new PublicKey(mint);
  const balances = new Map<string, bigint>();
  for (let start = 0; start < recipients.length; start += 100) {
    const owners = recipients.slice(start, start + 100);
    const accounts = owners.map((owner) =>
      getAssociatedTokenAddressSync(mintKey, new PublicKey(owner), true, TOKEN_2022_PROGRAM_ID),
    );
    const infos = await connection.getMultipleAccountsInfo(accounts, 'confirmed');
    owners.forEach((owner, i) => {
      const info = infos[i];
      balances.set(
        owner,
        info ? unpackAccount(accounts[i], info, TOKEN_2022_PROGRAM_ID).amount : 0n,
      );
    });
  }
  const { supply } = await getMint(connection, mintKey, 'confirmed', TOKEN_2022_PROGRAM_ID);
  return { balances, supply };
}
