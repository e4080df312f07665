import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as pkcs11 from 'pkcs11js';

/** Where Debian's softhsm2 puts its PKCS#11 module. */
const MODULES = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
];

export interface SoftHsmToken {
  module: string;
  tokenLabel: string;
  pin: string;
}

/**
 * A fresh SoftHSM2 token, in the run's token directory (softhsm.global-setup.ts), with a label of
 * its own. CI installs softhsm2 (.ci/run); without it this throws, naming the package.
 */
export function freshSoftHsmToken(): SoftHsmToken {
  const module = MODULES.find((path) => existsSync(path));
  if (!module) throw new Error('SoftHSM2 is not installed: apt-get install -y softhsm2');
  if (!process.env.SOFTHSM2_CONF) throw new Error('No SOFTHSM2_CONF: see softhsm.global-setup.ts');
  const tokenLabel = `ais-${randomUUID().slice(0, 8)}`;
  const pin = '1234';
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', tokenLabel, '--pin', pin, '--so-pin', '5678'],
    { stdio: 'pipe' },
  );
  return { module, tokenLabel, pin };
}

/**
 * The service's environment for SIGNER_BACKEND=pkcs11 on a fresh token. Set for every stack of a
 * run with TEST_SIGNER_BACKEND=pkcs11 (`npm run test:e2e:pkcs11`), and by the PKCS#11 suite.
 */
export function pkcs11SignerEnv(token = freshSoftHsmToken()): Record<string, string> {
  return {
    SIGNER_BACKEND: 'pkcs11',
    PKCS11_MODULE: token.module,
    PKCS11_TOKEN_LABEL: token.tokenLabel,
    PKCS11_PIN: token.pin,
    SOFTHSM2_CONF: process.env.SOFTHSM2_CONF!,
  };
}

/** How many objects (keys, public and private) the token holds, read through its own session. */
export function tokenObjectCount(token: SoftHsmToken): number {
  const library = new pkcs11.PKCS11();
  library.load(token.module);
  library.C_Initialize();
  try {
    const slot = library
      .C_GetSlotList(true)
      .find((candidate) => library.C_GetTokenInfo(candidate).label.trim() === token.tokenLabel);
    if (!slot) throw new Error(`No token labelled ${token.tokenLabel}`);
    const session = library.C_OpenSession(slot, pkcs11.CKF_SERIAL_SESSION);
    try {
      library.C_Login(session, pkcs11.CKU_USER, token.pin);
      library.C_FindObjectsInit(session, []);
      let count = 0;
      while (library.C_FindObjects(session)) count++;
      library.C_FindObjectsFinal(session);
      return count;
    } finally {
      library.C_CloseSession(session);
    }
  } finally {
    library.C_Finalize();
  }
}
