import { Pkcs11Token } from '@app/chains/signers/pkcs11-token';

/**
 * A process that opens (and logs in to) the token of PKCS11_MODULE/PKCS11_TOKEN_LABEL/PKCS11_PIN
 * OPENS times, closing it each time, as a service process does once when it starts. Prints
 * `{"opened":n,"errors":[...]}`: pkcs11-token.test.ts runs several at once, as the API and the
 * workers of one deployment start together on one token.
 */
async function main(): Promise<void> {
  const errors: string[] = [];
  const opens = Number(process.env.OPENS ?? 20);
  let opened = 0;
  for (let i = 0; i < opens; i++) {
    try {
      const token = await Pkcs11Token.open({
        module: process.env.PKCS11_MODULE!,
        tokenLabel: process.env.PKCS11_TOKEN_LABEL!,
        pin: process.env.PKCS11_PIN!,
        sessions: 1,
      });
      token.close();
      opened++;
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  process.stdout.write(JSON.stringify({ opened, errors }));
}

void main();
