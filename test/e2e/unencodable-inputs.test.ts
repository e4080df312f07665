import { Wallet } from 'ethers';
import { expectConfirmedEnvelope, expectError, type Data } from '@test/support/envelope-assertions';
import { expectRefusedUnstored as refusedUnstored } from '@test/support/unstored-refusal';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * Inputs no chain can encode (an amount past u64 / uint256 once scaled by the token's decimals,
 * an EVM token id past uint256) are a 400 at the API: nothing is stored, so no operation exists
 * that the worker could only fail, or retry for ever.
 */

const UINT256_MAX = 2n ** 256n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const IMAGE = 'https://example.com/image.png';

let stack: ServiceStack;
let api: HttpClient;
/** The account's managed Solana wallet: a well-formed recipient. */
let solanaWallet: string;

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  const user = await newAccountClient(stack.http);
  api = user.api;
  solanaWallet = user.account.wallets.find((w) => w.network === 'solana')!.public_key;
});

afterAll(async () => {
  await stack?.stop();
});

/** The request is a 400 naming the field and the limit, and leaves no operation behind. */
function expectRefusedUnstored(send: () => Promise<HttpResponse>, message: RegExp) {
  return refusedUnstored(stack.services.databaseUrl, send, message);
}

const cases = [
  {
    network: 'base',
    tx: /^0x[0-9a-f]{64}$/,
    decimals: 18,
    max: UINT256_MAX,
    limit: /amount is too large: an EVM token holds at most uint256 \(115792\d{72} base units\)/,
  },
  {
    network: 'solana',
    tx: /^[1-9A-HJ-NP-Za-km-z]{86,88}$/,
    decimals: 9,
    max: U64_MAX,
    limit: /amount is too large: a Solana token holds at most u64 \(18446744073709551615 base/,
  },
];

describe.each(cases)('an amount past what a $network token holds', (chain) => {
  // One base unit more than the chain's maximum, in whole tokens.
  const tooMuch = (decimals: number): string => {
    const units = (chain.max + 1n).toString().padStart(decimals + 1, '0');
    const whole = units.slice(0, units.length - decimals);
    const fraction = units.slice(units.length - decimals);
    return decimals === 0 ? whole : `${whole}.${fraction}`;
  };
  let mint: string;

  beforeAll(async () => {
    const response = await api.post('/tokens', {
      network: chain.network,
      name: 'Bounded',
      symbol: 'BND',
      amount: 1000,
    });
    mint = expectConfirmedEnvelope(response, chain.network, chain.tx).mint_address;
  });

  it('is 400 on token create, before anything is stored', async () => {
    // With fewer decimals the same limit is fewer base units per token, so more whole tokens.
    for (const decimals of [chain.decimals, 0]) {
      await expectRefusedUnstored(
        () =>
          api.post('/tokens', {
            network: chain.network,
            name: 'Too big',
            symbol: 'BIG',
            amount: tooMuch(decimals),
            ...(decimals === chain.decimals ? {} : { decimals }),
          }),
        chain.limit,
      );
    }
  });

  it.each(['mint', 'burn', 'transfer'])('is 400 on %s, before anything is stored', async (verb) => {
    const body: Data = { amount: tooMuch(chain.decimals) };
    if (verb === 'transfer') body.recipient = recipientFor(chain.network);
    await expectRefusedUnstored(() => api.post(`/tokens/${mint}/${verb}`, body), chain.limit);
  });
});

function recipientFor(network: string): string {
  return network === 'solana' ? solanaWallet : Wallet.createRandom().address;
}

describe('an EVM token id past uint256', () => {
  let collection: string;

  beforeAll(async () => {
    const response = await api.post('/nfts', {
      network: 'base',
      name: 'Bounded Collection',
      description: 'For token id limits',
      images: [IMAGE],
    });
    collection = expectConfirmedEnvelope(response, 'base', /^0x[0-9a-f]{64}$/).mint_address;
  });

  const tooLarge = (UINT256_MAX + 1n).toString();
  const limit = /is too large: an EVM token id is at most uint256/;

  it('is 400 on transfer and burn, before anything is stored', async () => {
    await expectRefusedUnstored(
      () =>
        api.post(`/nfts/${collection}/transfer`, {
          recipient: Wallet.createRandom().address,
          token_id: tooLarge,
        }),
      new RegExp(`token_id ${limit.source}`),
    );
    await expectRefusedUnstored(
      () => api.post(`/nfts/${collection}/burn`, { tokenId: tooLarge }),
      new RegExp(`tokenId ${limit.source}`),
    );
  });

  it('is 400 on a read', async () => {
    const response = await api.get(`/nfts/${collection}?token_id=${tooLarge}`);
    expectError(response, 400, 'Bad request', limit);
  });
});
