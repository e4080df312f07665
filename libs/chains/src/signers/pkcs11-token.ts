import { randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as pkcs11 from 'pkcs11js';
import { getBytes, hexlify } from 'ethers';
import { ethereumSignature } from './ecdsa-recovery';

// PKCS#11 3.0 names pkcs11js does not define.
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;

/** DER of the curves' object identifiers, as CKA_EC_PARAMS takes them. */
const SECP256K1_PARAMS = Buffer.from('06052b8104000a', 'hex'); // 1.3.132.0.10
const ED25519_PARAMS = Buffer.from('06032b6570', 'hex'); // 1.3.101.112

/**
 * Opening is tried this many times, 20-120 ms apart. SoftHSM's file store rewrites the token's
 * file at every login, so another process opening at that moment can read it half-written: no
 * label (the token is not found), CKR_GENERAL_ERROR or CKR_USER_PIN_NOT_INITIALIZED. 4 processes
 * opening one token 200 times each failed a quarter of their opens; the API and the workers of a
 * deployment start together on one token.
 */
const OPEN_ATTEMPTS = 10;

export type TokenKeyType = 'secp256k1' | 'ed25519';

/** A key pair made in the token: its private half stays there, named by `id` (CKA_ID). */
export interface TokenKey {
  type: TokenKeyType;
  /** CKA_ID, hex: what the database keeps to find the key again. */
  id: string;
  /** secp256k1: the uncompressed point (0x04...), hex; ed25519: the 32 bytes, hex. */
  publicKey: string;
}

export interface Pkcs11TokenOptions {
  /** The PKCS#11 module (PKCS11_MODULE), e.g. /usr/lib/softhsm/libsofthsm2.so. */
  module: string;
  /** The token's label (PKCS11_TOKEN_LABEL). */
  tokenLabel: string;
  /** The user PIN (PKCS11_PIN or the content of PKCS11_PIN_FILE). */
  pin: string;
  /** Sessions kept open: signatures at once (each one runs on its own session). */
  sessions: number;
}

/**
 * One PKCS#11 token, as the worker's signer uses it: key pairs generated inside it (private,
 * sensitive, never extractable, kept on the token), and signatures made there: secp256k1 ECDSA
 * over a digest (CKM_ECDSA), Ed25519 over a message (CKM_EDDSA, single-part: some tokens refuse
 * EdDSA in parts). Key bytes never leave the token; only public keys and ids come out.
 *
 * One token a process: a module is initialized once (C_Initialize), and finalized by `close`.
 *
 * Sessions are pooled: a signature takes one (its C_SignInit and C_Sign must not interleave with
 * another's), and waits for one while all are busy. One login serves them all (PKCS#11 logs the
 * application in, not the session). Calls that take the token's time run on libuv's thread pool
 * (the Async variants), so the event loop goes on meanwhile.
 */
export class Pkcs11Token {
  private readonly free: pkcs11.Handle[] = [];
  private readonly waiting: ((session: pkcs11.Handle) => void)[] = [];
  private readonly handles = new Map<string, pkcs11.Handle>();
  private readonly publicKeys = new Map<string, string>();
  private closed = false;

  private constructor(
    private readonly library: pkcs11.PKCS11,
    private readonly all: pkcs11.Handle[],
  ) {
    this.free.push(...all);
  }

  /**
   * The token, logged in. A refused PIN fails at once (another try would count against the
   * token's lockout); any other failure is tried again (OPEN_ATTEMPTS), and the last one thrown.
   */
  static async open(options: Pkcs11TokenOptions): Promise<Pkcs11Token> {
    for (let attempt = 1; ; attempt++) {
      try {
        return Pkcs11Token.openOnce(options);
      } catch (error) {
        if (error instanceof PinRefused || attempt >= OPEN_ATTEMPTS) throw error;
        await sleep(randomInt(20, 120));
      }
    }
  }

  private static openOnce(options: Pkcs11TokenOptions): Pkcs11Token {
    const library = new pkcs11.PKCS11();
    library.load(options.module);
    // Calls run on libuv's threads (the Async variants), so the module must lock for itself.
    library.C_Initialize({ flags: pkcs11.CKF_OS_LOCKING_OK });
    try {
      const slot = findSlot(library, options.tokenLabel);
      const flags = pkcs11.CKF_SERIAL_SESSION | pkcs11.CKF_RW_SESSION;
      const sessions = Array.from({ length: Math.max(1, options.sessions) }, () =>
        library.C_OpenSession(slot, flags),
      );
      try {
        library.C_Login(sessions[0], pkcs11.CKU_USER, options.pin);
      } catch (error) {
        const message = `PKCS#11 login to token "${options.tokenLabel}" refused: ${reason(error)}`;
        throw /CKR_PIN_/.test(reason(error)) ? new PinRefused(message) : new Error(message);
      }
      return new Pkcs11Token(library, sessions);
    } catch (error) {
      library.C_Finalize();
      throw error;
    }
  }

  /** A new key pair in the token, labelled `label` (for people reading the token). */
  async generate(type: TokenKeyType, label: string): Promise<TokenKey> {
    const id = randomBytes(16);
    const common = [
      { type: pkcs11.CKA_TOKEN, value: true },
      { type: pkcs11.CKA_ID, value: id },
      { type: pkcs11.CKA_LABEL, value: label },
    ];
    const params = type === 'secp256k1' ? SECP256K1_PARAMS : ED25519_PARAMS;
    const mechanism =
      type === 'secp256k1' ? pkcs11.CKM_EC_KEY_PAIR_GEN : CKM_EC_EDWARDS_KEY_PAIR_GEN;
    const { privateKey, point } = await this.withSession(async (session) => {
      const keys = await this.library.C_GenerateKeyPairAsync(
        session,
        { mechanism },
        [
          ...common,
          { type: pkcs11.CKA_EC_PARAMS, value: params },
          { type: pkcs11.CKA_VERIFY, value: true },
        ],
        [
          ...common,
          { type: pkcs11.CKA_PRIVATE, value: true },
          { type: pkcs11.CKA_SENSITIVE, value: true },
          { type: pkcs11.CKA_EXTRACTABLE, value: false },
          { type: pkcs11.CKA_SIGN, value: true },
        ],
      );
      return { privateKey: keys.privateKey, point: this.ecPoint(session, keys.publicKey) };
    });
    const key = { type, id: id.toString('hex'), publicKey: hexlify(point).slice(2) };
    this.handles.set(key.id, privateKey);
    this.publicKeys.set(key.id, key.publicKey);
    return key;
  }

  /** An Ethereum signature of a 32-byte digest (hex) by the secp256k1 key `id`. */
  async signDigest(id: string, digest: string): Promise<ReturnType<typeof ethereumSignature>> {
    const raw = await this.sign(id, { mechanism: pkcs11.CKM_ECDSA }, Buffer.from(getBytes(digest)));
    return ethereumSignature(raw, digest, `0x${await this.publicKey(id)}`);
  }

  /** The Ed25519 signature (64 bytes) of `message` by the key `id`. */
  signMessage(id: string, message: Uint8Array): Promise<Uint8Array> {
    return this.sign(id, { mechanism: CKM_EDDSA }, Buffer.from(message));
  }

  /** The public key of `id`, hex (as `generate` gave it). */
  async publicKey(id: string): Promise<string> {
    const known = this.publicKeys.get(id);
    if (known) return known;
    const found = await this.withSession(async (session) => {
      const handle = this.find(session, pkcs11.CKO_PUBLIC_KEY, id);
      return hexlify(this.ecPoint(session, handle)).slice(2);
    });
    this.publicKeys.set(id, found);
    return found;
  }

  /**
   * Destroys the key pair `id` (both objects): a key made for a wallet that was never stored.
   * A half that is already gone is no error.
   */
  async destroy(id: string): Promise<void> {
    await this.withSession(async (session) => {
      for (const objectClass of [pkcs11.CKO_PRIVATE_KEY, pkcs11.CKO_PUBLIC_KEY]) {
        const handle = this.findOrNull(session, objectClass, id);
        if (handle) this.library.C_DestroyObject(session, handle);
      }
    });
    this.handles.delete(id);
    this.publicKeys.delete(id);
  }

  /** The attributes that keep the private key `id` in the token (for checks and audits). */
  async privateKeyGuard(id: string): Promise<{ sensitive: boolean; extractable: boolean }> {
    return this.withSession(async (session) => {
      const handle = this.privateKey(session, id);
      const [sensitive, extractable] = this.library.C_GetAttributeValue(session, handle, [
        { type: pkcs11.CKA_SENSITIVE },
        { type: pkcs11.CKA_EXTRACTABLE },
      ]);
      return { sensitive: isTrue(sensitive.value), extractable: isTrue(extractable.value) };
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.library.C_Logout(this.all[0]);
    } catch {
      // Logged out already, or the token went away: closing the sessions is what matters.
    }
    for (const session of this.all) {
      try {
        this.library.C_CloseSession(session);
      } catch {
        // As above.
      }
    }
    this.library.C_Finalize();
  }

  private async sign(id: string, mechanism: pkcs11.Mechanism, data: Buffer): Promise<Uint8Array> {
    return this.withSession(async (session) => {
      this.library.C_SignInit(session, mechanism, this.privateKey(session, id));
      const signature = await this.library.C_SignAsync(session, data, Buffer.alloc(128));
      return new Uint8Array(signature);
    });
  }

  /** The private key's handle, found once by its id (handles of token objects outlive sessions). */
  private privateKey(session: pkcs11.Handle, id: string): pkcs11.Handle {
    let handle = this.handles.get(id);
    if (!handle) {
      handle = this.find(session, pkcs11.CKO_PRIVATE_KEY, id);
      this.handles.set(id, handle);
    }
    return handle;
  }

  private find(session: pkcs11.Handle, objectClass: number, id: string): pkcs11.Handle {
    const handle = this.findOrNull(session, objectClass, id);
    if (!handle) throw new Error(`The token holds no key ${id}`);
    return handle;
  }

  private findOrNull(
    session: pkcs11.Handle,
    objectClass: number,
    id: string,
  ): pkcs11.Handle | null {
    this.library.C_FindObjectsInit(session, [
      { type: pkcs11.CKA_CLASS, value: objectClass },
      { type: pkcs11.CKA_ID, value: Buffer.from(id, 'hex') },
    ]);
    try {
      return this.library.C_FindObjects(session) ?? null;
    } finally {
      this.library.C_FindObjectsFinal(session);
    }
  }

  /** CKA_EC_POINT without its DER OCTET STRING wrapping. */
  private ecPoint(session: pkcs11.Handle, publicKey: pkcs11.Handle): Uint8Array {
    const [attribute] = this.library.C_GetAttributeValue(session, publicKey, [
      { type: pkcs11.CKA_EC_POINT },
    ]);
    return unwrapOctetString(attribute.value);
  }

  private async withSession<T>(use: (session: pkcs11.Handle) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('The PKCS#11 token is closed');
    const session =
      this.free.pop() ??
      (await new Promise<pkcs11.Handle>((resolve) => this.waiting.push(resolve)));
    try {
      return await use(session);
    } finally {
      const next = this.waiting.shift();
      if (next) next(session);
      else this.free.push(session);
    }
  }
}

/** The token refused the PIN (CKR_PIN_INCORRECT, CKR_PIN_LOCKED, ...). */
class PinRefused extends Error {}

function findSlot(library: pkcs11.PKCS11, label: string): pkcs11.Handle {
  for (const slot of library.C_GetSlotList(true)) {
    if (library.C_GetTokenInfo(slot).label.trim() === label) return slot;
  }
  throw new Error(`No PKCS#11 token labelled "${label}"`);
}

/**
 * A DER OCTET STRING's content, or the bytes as they are when they are not one (some tokens give
 * the bare point; an uncompressed one starts with 0x04 as well, hence the length check).
 */
function unwrapOctetString(der: Buffer): Uint8Array {
  if (der[0] !== 0x04 || der[1] >= 0x80 || der.length !== 2 + der[1]) return der;
  return der.subarray(2);
}

function isTrue(value: unknown): boolean {
  return Buffer.isBuffer(value) ? value[0] === 1 : value === true;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
