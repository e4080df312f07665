import {
  AddressLookupTableProgram,
  ComputeBudgetProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  TransactionInstruction,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
  TransactionMessage,
  VersionedTransaction,
  type AddressLookupTableAccount,
  type Connection,
} from '@solana/web3.js';
import {
  ExtensionType,
  LENGTH_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TYPE_SIZE,
  burnChecked,
  createAssociatedTokenAccountIdempotent,
  createInitializeGroupMemberPointerInstruction,
  createInitializeGroupPointerInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMintInstruction,
  getAccount,
  getGroupMemberPointerState,
  getGroupPointerState,
  getMetadataPointerState,
  getMint,
  getMintLen,
  getTokenGroupMemberState,
  getTokenGroupState,
  getTokenMetadata,
  mintTo,
  transferChecked,
} from '@solana/spl-token';
import {
  TOKEN_GROUP_MEMBER_SIZE,
  TOKEN_GROUP_SIZE,
  createInitializeGroupInstruction,
  createInitializeMemberInstruction,
} from '@solana/spl-token-group';
import {
  createInitializeInstruction,
  createUpdateFieldInstruction,
  pack,
  type TokenMetadata,
} from '@solana/spl-token-metadata';
import { startSolanaRpc, type SolanaRpcHandle } from '@app/localnet';
import { airdrop, connect, fundedKeypair, letWebSocketIdle, signFast } from './solana-fixtures';

jest.setTimeout(60_000);

/**
 * An unmodified web3.js v1 Connection and the spl-token helpers against the local validator:
 * what the service's Solana adapter does, end to end.
 */
describe('Solana RPC over litesvm, driven by web3.js and spl-token', () => {
  let solana: SolanaRpcHandle;
  let connection: Connection;
  let payer: Keypair;

  beforeAll(async () => {
    solana = await startSolanaRpc({ port: 0, wsPort: 0 });
    connection = connect(solana.rpcUrl, solana.wsUrl);
    payer = await fundedKeypair(connection, 1_000);
  });

  afterAll(async () => {
    await letWebSocketIdle();
    await solana.stop();
  });

  it('answers the cluster queries web3.js makes', async () => {
    const [version, genesis, epoch, slot, height, latest, rent] = await Promise.all([
      connection.getVersion(),
      connection.getGenesisHash(),
      connection.getEpochInfo(),
      connection.getSlot(),
      connection.getBlockHeight(),
      connection.getLatestBlockhash(),
      connection.getMinimumBalanceForRentExemption(165),
    ]);
    expect(version['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(genesis).toHaveLength(44);
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(0);
    expect(height).toBeGreaterThanOrEqual(0);
    expect(slot).toBeGreaterThanOrEqual(0);
    expect(latest.lastValidBlockHeight).toBeGreaterThanOrEqual(height + 149);
    expect(rent).toBeGreaterThan(0);
    expect((await connection.isBlockhashValid(latest.blockhash)).value).toBe(true);

    const message = new Transaction({ feePayer: payer.publicKey, ...latest })
      .add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: payer.publicKey,
          lamports: 1,
        }),
      )
      .compileMessage();
    expect((await connection.getFeeForMessage(message)).value).toBe(5000);
    expect(Array.isArray(await connection.getRecentPrioritizationFees())).toBe(true);
  });

  it('sends and confirms SOL transfers, and reports balances, statuses and the transaction', async () => {
    const recipient = Keypair.generate().publicKey;
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: recipient,
        lamports: LAMPORTS_PER_SOL,
      }),
    );
    const signature = await sendAndConfirmTransaction(connection, tx, [payer]);

    expect(await connection.getBalance(recipient)).toBe(LAMPORTS_PER_SOL);
    const status = await connection.getSignatureStatus(signature, {
      searchTransactionHistory: true,
    });
    expect(status.value).toMatchObject({ err: null, confirmationStatus: 'finalized' });

    const fetched = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(fetched?.meta).toMatchObject({ err: null, fee: 5000 });
    expect(fetched?.meta?.logMessages).toContain(
      'Program 11111111111111111111111111111111 success',
    );
    expect(fetched?.meta?.postBalances[1]).toBe(LAMPORTS_PER_SOL);
    expect(fetched?.transaction.signatures[0]).toBe(signature);

    const parsed = await connection.getParsedTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(parsed?.transaction.message.accountKeys[1].pubkey.toBase58()).toBe(recipient.toBase58());

    const history = await connection.getSignaturesForAddress(recipient);
    expect(history.map((h) => h.signature)).toEqual([signature]);
  });

  it('refuses a failing transaction at preflight with its logs, and records it with skipPreflight', async () => {
    const poor = await fundedKeypair(connection, 1);
    const tooMuch = () =>
      new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: poor.publicKey,
          toPubkey: payer.publicKey,
          lamports: 5 * LAMPORTS_PER_SOL,
        }),
      );

    const error = await sendAndConfirmTransaction(connection, tooMuch(), [poor]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SendTransactionError);
    expect((error as SendTransactionError).message).toContain('custom program error: 0x1');
    expect((error as SendTransactionError).logs?.join('\n')).toContain(
      'Transfer: insufficient lamports',
    );
    expect(await connection.getBalance(poor.publicKey)).toBe(LAMPORTS_PER_SOL); // no fee taken

    const signature = await connection.sendTransaction(tooMuch(), [poor], { skipPreflight: true });
    const { value } = await connection.confirmTransaction({
      signature,
      ...(await connection.getLatestBlockhash()),
    });
    expect(value.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const fetched = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(fetched?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(fetched?.meta?.logMessages?.join('\n')).toContain('Transfer: insufficient lamports');
    expect(await connection.getBalance(poor.publicKey)).toBe(LAMPORTS_PER_SOL - 5000); // fee charged
  });

  it('executes a transaction sent twice only once', async () => {
    const recipient = Keypair.generate().publicKey;
    const tx = new Transaction({
      feePayer: payer.publicKey,
      ...(await connection.getLatestBlockhash()),
    }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: recipient,
        lamports: LAMPORTS_PER_SOL,
      }),
    );
    tx.sign(payer);
    const raw = tx.serialize();
    const first = await connection.sendRawTransaction(raw);
    const second = await connection.sendRawTransaction(raw);
    const third = await connection.sendRawTransaction(raw, { skipPreflight: true });
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(await connection.getBalance(recipient)).toBe(LAMPORTS_PER_SOL);
  });

  it('reports recent prioritization fees per slot, and per write-locked account', async () => {
    const [hot, cold] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const other = await fundedKeypair(connection);
    const latest = await connection.getLatestBlockhash();
    const pay = (from: Keypair, to: PublicKey, microLamports: number) => {
      const tx = new Transaction({ feePayer: from.publicKey, ...latest }).add(
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
        SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 }),
      );
      tx.sign(from);
      return connection.sendRawTransaction(tx.serialize());
    };
    // Sent together, so that they mostly land in one slot: its lowest price is then 0.
    const [paid, free] = await Promise.all([pay(payer, hot, 5_000), pay(other, cold, 0)]);
    const slotOf = async (signature: string) =>
      (await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))!.slot;
    const [paidSlot, freeSlot] = await Promise.all([slotOf(paid), slotOf(free)]);
    const feesAt = async (slot: number, accounts?: PublicKey[]) =>
      (
        await connection.getRecentPrioritizationFees(
          accounts ? { lockedWritableAccounts: accounts } : undefined,
        )
      ).find((entry) => entry.slot === slot)?.prioritizationFee;

    // Locking the hot account took 5,000 in its slot, whatever else landed there for less.
    expect(await feesAt(paidSlot, [hot])).toBe(5_000);
    expect(await feesAt(paidSlot, [cold, hot])).toBe(5_000);
    expect(await feesAt(freeSlot, [cold])).toBe(0);
    // The slot's own figure is its lowest price.
    expect(await feesAt(paidSlot)).toBe(paidSlot === freeSlot ? 0 : 5_000);
  });

  it('runs SPL Memo v2 without signer accounts and shows the memo in the address history', async () => {
    const memo = new TransactionInstruction({
      programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
      keys: [],
      data: Buffer.from('ais:memo-test', 'utf8'),
    });
    const signature = await sendAndConfirmTransaction(connection, new Transaction().add(memo), [
      payer,
    ]);
    const fetched = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(fetched?.meta?.logMessages).toContain('Program log: ais:memo-test');
    const [latest] = await connection.getSignaturesForAddress(payer.publicKey, { limit: 1 });
    expect(latest).toMatchObject({ signature, memo: '[13] ais:memo-test' });
  });

  it('issues a Token-2022 token with metadata: mint, transfer, burn, read back', async () => {
    const mint = Keypair.generate();
    const metadata: TokenMetadata = {
      mint: mint.publicKey,
      updateAuthority: payer.publicKey,
      name: 'Local Coin',
      symbol: 'LOC',
      uri: 'https://assets.example.test/loc.json',
      additionalMetadata: [['issuer', 'localnet']],
    };
    const mintLen = getMintLen([ExtensionType.MetadataPointer]);
    const fullLen = mintLen + TYPE_SIZE + LENGTH_SIZE + pack(metadata).length;
    const common = {
      programId: TOKEN_2022_PROGRAM_ID,
      metadata: mint.publicKey,
      updateAuthority: payer.publicKey,
    };
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: mint.publicKey,
          space: mintLen,
          lamports: await connection.getMinimumBalanceForRentExemption(fullLen),
          programId: TOKEN_2022_PROGRAM_ID,
        }),
        createInitializeMetadataPointerInstruction(
          mint.publicKey,
          payer.publicKey,
          mint.publicKey,
          TOKEN_2022_PROGRAM_ID,
        ),
        createInitializeMintInstruction(
          mint.publicKey,
          6,
          payer.publicKey,
          null,
          TOKEN_2022_PROGRAM_ID,
        ),
        createInitializeInstruction({
          ...common,
          mint: mint.publicKey,
          mintAuthority: payer.publicKey,
          name: metadata.name,
          symbol: metadata.symbol,
          uri: metadata.uri,
        }),
        createUpdateFieldInstruction({ ...common, field: 'issuer', value: 'localnet' }),
      ),
      [payer, mint],
    );

    const alice = Keypair.generate().publicKey;
    const bob = Keypair.generate().publicKey;
    const ata = (owner: PublicKey) =>
      createAssociatedTokenAccountIdempotent(
        connection,
        payer,
        mint.publicKey,
        owner,
        {},
        TOKEN_2022_PROGRAM_ID,
      );
    const [aliceAta, bobAta] = [await ata(alice), await ata(bob)];
    const aliceSigner = await fundedKeypair(connection, 1);
    const aliceOwnedAta = await ata(aliceSigner.publicKey);

    await mintTo(
      connection,
      payer,
      mint.publicKey,
      aliceOwnedAta,
      payer,
      1_000_000_000,
      [],
      {},
      TOKEN_2022_PROGRAM_ID,
    );
    await transferChecked(
      connection,
      payer,
      aliceOwnedAta,
      mint.publicKey,
      bobAta,
      aliceSigner,
      250_000_000,
      6,
      [],
      {},
      TOKEN_2022_PROGRAM_ID,
    );
    await burnChecked(
      connection,
      payer,
      aliceOwnedAta,
      mint.publicKey,
      aliceSigner,
      100_000_000,
      6,
      [],
      {},
      TOKEN_2022_PROGRAM_ID,
    );

    expect((await connection.getTokenSupply(mint.publicKey)).value).toMatchObject({
      amount: '900000000',
      decimals: 6,
      uiAmountString: '900',
    });
    expect((await connection.getTokenAccountBalance(aliceOwnedAta)).value.uiAmountString).toBe(
      '650',
    );
    expect((await connection.getTokenAccountBalance(bobAta)).value.amount).toBe('250000000');
    expect(
      (await getAccount(connection, aliceAta, 'confirmed', TOKEN_2022_PROGRAM_ID)).amount,
    ).toBe(0n);

    const onChain = await getTokenMetadata(
      connection,
      mint.publicKey,
      'confirmed',
      TOKEN_2022_PROGRAM_ID,
    );
    expect(onChain).toMatchObject({ name: 'Local Coin', symbol: 'LOC', uri: metadata.uri });
    expect(onChain?.additionalMetadata).toEqual([['issuer', 'localnet']]);
    const mintInfo = await getMint(connection, mint.publicKey, 'confirmed', TOKEN_2022_PROGRAM_ID);
    expect(getMetadataPointerState(mintInfo)?.metadataAddress?.toBase58()).toBe(
      mint.publicKey.toBase58(),
    );

    const parsedMint = await connection.getParsedAccountInfo(mint.publicKey);
    const info = (
      parsedMint.value?.data as {
        parsed: { info: { extensions: { extension: string; state: unknown }[] } };
      }
    ).parsed.info;
    expect(info.extensions.find((e) => e.extension === 'tokenMetadata')?.state).toMatchObject({
      name: 'Local Coin',
      additionalMetadata: [['issuer', 'localnet']],
    });

    const byMint = await connection.getTokenAccountsByOwner(bob, { mint: mint.publicKey });
    expect(byMint.value.map((a) => a.pubkey.toBase58())).toEqual([bobAta.toBase58()]);
    const byProgram = await connection.getParsedTokenAccountsByOwner(aliceSigner.publicKey, {
      programId: TOKEN_2022_PROGRAM_ID,
    });
    expect(byProgram.value[0].account.data.parsed.info.tokenAmount.uiAmountString).toBe('650');

    const holders = await connection.getProgramAccounts(TOKEN_2022_PROGRAM_ID, {
      filters: [{ memcmp: { offset: 0, bytes: mint.publicKey.toBase58() } }, { dataSize: 170 }],
    });
    expect(holders.map((h) => h.pubkey.toBase58()).sort()).toEqual(
      [aliceAta, bobAta, aliceOwnedAta].map((a) => a.toBase58()).sort(),
    );

    const lastTransfer = await connection.getSignaturesForAddress(bobAta, { limit: 1 });
    const tx = await connection.getTransaction(lastTransfer[0].signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(
      tx?.meta?.postTokenBalances?.find((b) => b.owner === bob.toBase58())?.uiTokenAmount.amount,
    ).toBe('250000000');
  });

  it('creates a collection (group) and a member NFT, with the group size enforced on chain', async () => {
    const collection = Keypair.generate();
    const groupMintLen = getMintLen([ExtensionType.GroupPointer]);
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: collection.publicKey,
          space: groupMintLen,
          lamports: await connection.getMinimumBalanceForRentExemption(
            groupMintLen + TYPE_SIZE + LENGTH_SIZE + TOKEN_GROUP_SIZE,
          ),
          programId: TOKEN_2022_PROGRAM_ID,
        }),
        createInitializeGroupPointerInstruction(
          collection.publicKey,
          payer.publicKey,
          collection.publicKey,
          TOKEN_2022_PROGRAM_ID,
        ),
        createInitializeMintInstruction(
          collection.publicKey,
          0,
          payer.publicKey,
          null,
          TOKEN_2022_PROGRAM_ID,
        ),
        createInitializeGroupInstruction({
          programId: TOKEN_2022_PROGRAM_ID,
          group: collection.publicKey,
          mint: collection.publicKey,
          mintAuthority: payer.publicKey,
          updateAuthority: payer.publicKey,
          maxSize: BigInt(1),
        }),
      ),
      [payer, collection],
    );

    const createMember = async () => {
      const item = Keypair.generate();
      const memberMintLen = getMintLen([ExtensionType.GroupMemberPointer]);
      await sendAndConfirmTransaction(
        connection,
        new Transaction().add(
          SystemProgram.createAccount({
            fromPubkey: payer.publicKey,
            newAccountPubkey: item.publicKey,
            space: memberMintLen,
            lamports: await connection.getMinimumBalanceForRentExemption(
              memberMintLen + TYPE_SIZE + LENGTH_SIZE + TOKEN_GROUP_MEMBER_SIZE,
            ),
            programId: TOKEN_2022_PROGRAM_ID,
          }),
          createInitializeGroupMemberPointerInstruction(
            item.publicKey,
            payer.publicKey,
            item.publicKey,
            TOKEN_2022_PROGRAM_ID,
          ),
          createInitializeMintInstruction(
            item.publicKey,
            0,
            payer.publicKey,
            null,
            TOKEN_2022_PROGRAM_ID,
          ),
          createInitializeMemberInstruction({
            programId: TOKEN_2022_PROGRAM_ID,
            member: item.publicKey,
            memberMint: item.publicKey,
            memberMintAuthority: payer.publicKey,
            group: collection.publicKey,
            groupUpdateAuthority: payer.publicKey,
          }),
        ),
        [payer, item],
      );
      return item.publicKey;
    };

    const item = await createMember();
    const owner = Keypair.generate().publicKey;
    const ownerAta = await createAssociatedTokenAccountIdempotent(
      connection,
      payer,
      item,
      owner,
      {},
      TOKEN_2022_PROGRAM_ID,
    );
    await mintTo(connection, payer, item, ownerAta, payer, 1, [], {}, TOKEN_2022_PROGRAM_ID);

    const groupMint = await getMint(
      connection,
      collection.publicKey,
      'confirmed',
      TOKEN_2022_PROGRAM_ID,
    );
    expect(getGroupPointerState(groupMint)?.groupAddress?.toBase58()).toBe(
      collection.publicKey.toBase58(),
    );
    expect(getTokenGroupState(groupMint)).toMatchObject({ size: BigInt(1), maxSize: BigInt(1) });
    const itemMint = await getMint(connection, item, 'confirmed', TOKEN_2022_PROGRAM_ID);
    expect(itemMint.supply).toBe(1n);
    expect(getGroupMemberPointerState(itemMint)?.memberAddress?.toBase58()).toBe(item.toBase58());
    const member = getTokenGroupMemberState(itemMint);
    expect(member?.group?.toBase58()).toBe(collection.publicKey.toBase58());
    expect(member?.memberNumber).toBe(BigInt(1));

    const parsedGroup = await connection.getParsedAccountInfo(collection.publicKey);
    const extensions = (
      parsedGroup.value?.data as {
        parsed: { info: { extensions: { extension: string; state: unknown }[] } };
      }
    ).parsed.info.extensions;
    expect(extensions.find((e) => e.extension === 'tokenGroup')?.state).toMatchObject({
      size: 1,
      maxSize: 1,
    });

    // The collection is full: a second member is refused by the program, with its logs.
    const refused = await createMember().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SendTransactionError);
    expect((refused as SendTransactionError).message).toMatch(/custom program error: 0x[0-9a-f]+/);
    expect((refused as SendTransactionError).logs?.join('\n')).toContain(
      'TokenGroupInstruction: InitializeMember',
    );
    expect(
      getTokenGroupState(
        await getMint(connection, collection.publicKey, 'confirmed', TOKEN_2022_PROGRAM_ID),
      )?.size,
    ).toBe(BigInt(1));
  });

  it('runs versioned transactions through an address lookup table', async () => {
    const sendV0 = async (
      instructions: TransactionInstruction[],
      tables: AddressLookupTableAccount[] = [],
    ) => {
      const latest = await connection.getLatestBlockhash();
      const message = new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: latest.blockhash,
        instructions,
      }).compileToV0Message(tables);
      const tx = new VersionedTransaction(message);
      tx.sign([payer]);
      const signature = await connection.sendTransaction(tx);
      expect((await connection.confirmTransaction({ signature, ...latest })).value.err).toBeNull();
      return signature;
    };
    const recipients = Array.from({ length: 3 }, () => Keypair.generate().publicKey);
    const [create, table] = AddressLookupTableProgram.createLookupTable({
      authority: payer.publicKey,
      payer: payer.publicKey,
      recentSlot: await connection.getSlot(),
    });
    const extend = AddressLookupTableProgram.extendLookupTable({
      payer: payer.publicKey,
      authority: payer.publicKey,
      lookupTable: table,
      addresses: recipients,
    });
    await sendV0([create, extend]);
    const extendedAt = await connection.getSlot();
    while ((await connection.getSlot()) <= extendedAt) await new Promise((r) => setTimeout(r, 50));

    const lookup = (await connection.getAddressLookupTable(table)).value!;
    expect(lookup.state.addresses.map((a) => a.toBase58())).toEqual(
      recipients.map((r) => r.toBase58()),
    );
    const signature = await sendV0(
      recipients.map((to) =>
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: to,
          lamports: LAMPORTS_PER_SOL,
        }),
      ),
      [lookup],
    );
    const fetched = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(fetched?.version).toBe(0);
    expect(fetched?.meta?.loadedAddresses?.writable.map((a) => a.toBase58())).toEqual(
      recipients.map((r) => r.toBase58()),
    );
    expect(await connection.getBalance(recipients[2])).toBe(LAMPORTS_PER_SOL);
    await expect(connection.getTransaction(signature)).rejects.toThrow(
      'Transaction version (0) is not supported',
    );
  });

  it('lands 500 transfers sent at once and confirms them over the WebSocket', async () => {
    const senders = await Promise.all(
      Array.from({ length: 50 }, () => fundedKeypair(connection, 10)),
    );
    const recipient = Keypair.generate().publicKey;
    await airdrop(connection, recipient, 1);
    const latest = await connection.getLatestBlockhash();
    const raws = Array.from({ length: 500 }, (_, i) => {
      const from = senders[i % senders.length];
      const tx = new Transaction({ feePayer: from.publicKey, ...latest }).add(
        SystemProgram.transfer({
          fromPubkey: from.publicKey,
          toPubkey: recipient,
          lamports: 1_000 + i,
        }),
      );
      return signFast(tx, from);
    });

    const signatures = await Promise.all(raws.map((raw) => connection.sendRawTransaction(raw)));
    const confirmations = await Promise.all(
      signatures.map((signature) =>
        connection.confirmTransaction({ signature, ...latest }, 'confirmed'),
      ),
    );
    expect(new Set(signatures).size).toBe(500);
    expect(confirmations.every((c) => c.value.err === null)).toBe(true);
    const expected = LAMPORTS_PER_SOL + raws.reduce((sum, _, i) => sum + 1_000 + i, 0);
    expect(await connection.getBalance(recipient)).toBe(expected);
  });

  it('notifies account changes to web3.js subscribers', async () => {
    const watched = Keypair.generate().publicKey;
    const changed = new Promise<number>((resolve) => {
      const id = connection.onAccountChange(watched, (account) => {
        void connection.removeAccountChangeListener(id);
        resolve(account.lamports);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the subscription reach the server
    await airdrop(connection, watched, 2);
    expect(await changed).toBe(2 * LAMPORTS_PER_SOL);
  });
});
