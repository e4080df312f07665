import {
  AuditEventRepository,
  SealedSecretsRepository,
  UnitOfWork,
  runDatabaseCli,
} from '@app/database';
import { KeyRotation } from './key-rotation';
import { SecretBox } from './secret-box';

/**
 * `npm run keys:rotate`: every stored secret under MASTER_KEY_ID (see KeyRotation). Run it once
 * every API and worker process has MASTER_KEY_ID set to the new key (and MASTER_KEYS holds the old
 * ones still); then it says which old keys nothing uses any more. Exit 0 when no stored secret is
 * left under another key, 1 when some are (written meanwhile by a process still on an old key:
 * run it again), 2 on an error (run it again: it takes up where it stopped).
 */
runDatabaseCli('Key rotation stopped', async (dataSource, config) => {
  const box = new SecretBox(config.crypto.activeKey, config.crypto.keys);
  const rotation = new KeyRotation(
    box,
    new SealedSecretsRepository(dataSource),
    new AuditEventRepository(dataSource),
    new UnitOfWork(dataSource),
  );
  console.log(`Bringing every stored secret under master key "${box.activeKeyId}"...`);
  const result = await rotation.run((done) =>
    console.log(
      `  wallets ${done.wallets}, new mint secrets ${done.newMintSecrets}, webhook endpoints ${done.webhookEndpoints}`,
    ),
  );
  console.log(
    `Done: ${result.wallets} wallet key(s) wrapped again, ${result.newMintSecrets} new mint secret(s) and ${result.webhookEndpoints} webhook endpoint(s) sealed again under "${result.keyId}".`,
  );
  for (const key of [...config.crypto.keys.keys()].filter((id) => id !== result.keyId)) {
    const left = result.stillUnder.get(key) ?? 0;
    console.log(
      left === 0
        ? `Master key "${key}" seals nothing any more: it can be retired from MASTER_KEYS.`
        : `Master key "${key}" still seals ${left} secret(s): keep it, and run keys:rotate again once every process seals under "${result.keyId}".`,
    );
  }
  return [...result.stillUnder.values()].some((count) => count > 0) ? 1 : 0;
});
