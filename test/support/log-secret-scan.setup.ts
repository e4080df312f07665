import { findSecrets, handedOutSecrets } from './secret-scan';
import { serviceProcessesStarted } from './service-process';

/**
 * Once an e2e suite is done (jest setupFilesAfterEnv of the e2e project): no API key, session
 * token, webhook secret or wallet secret key its HTTP clients were handed may stand in what any
 * service process it started printed, in clear, hex, base64, base64url or base58 (issue 26).
 * A sighting names the secret's kind, the form, the process and the line, never the secret.
 */
afterAll(() => {
  const logs = serviceProcessesStarted().map((process) => ({
    source: process.name,
    text: process.output(),
  }));
  expect(findSecrets(handedOutSecrets.all, logs)).toEqual([]);
});
