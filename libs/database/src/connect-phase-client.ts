import { Client } from 'pg';

const FAILED_TO_CONNECT = Symbol('failedToConnect');

/**
 * A node-postgres client whose errors while connecting are marked as such: nothing was sent on
 * that connection. The words cannot tell: a server side that accepts the socket and then resets
 * or closes it (a proxy or balancer with no backend) fails with the same ECONNRESET or
 * "Connection terminated unexpectedly" as a connection cut mid-statement. The pool makes its
 * connections with this class (`dataSourceOptions`). A connection lost later never takes the
 * process down (see the constructor).
 */
export class ConnectPhaseClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    // A lost connection (a Postgres restart's 57P01, a reset) is emitted as 'error' on the
    // client; whoever holds it, or the pool, also gets it, and its queries fail. With no other
    // listener at that moment (node-postgres#2762) Node threw it, and the process died.
    this.on('error', ignoreLostConnection);
  }

  override connect(): Promise<Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<Client> | void {
    if (!callback) {
      return super.connect().catch((error: unknown) => {
        throw markFailedToConnect(error);
      });
    }
    super.connect((error: Error | null, client?: Client) =>
      error
        ? (callback as FailedCallback)(markFailedToConnect(error))
        : (callback as ConnectedCallback)(null, client!),
    );
  }
}

function ignoreLostConnection(): void {}

type FailedCallback = (error: Error) => void;
type ConnectedCallback = (error: null, client: Client) => void;
type ConnectCallback = FailedCallback | ConnectedCallback;

/** Whether the error came from making a `ConnectPhaseClient`'s connection. */
export function failedToConnect(error: object): boolean {
  return (error as { [FAILED_TO_CONNECT]?: boolean })[FAILED_TO_CONNECT] === true;
}

function markFailedToConnect<T>(error: T): T {
  if (typeof error === 'object' && error !== null) {
    Object.defineProperty(error, FAILED_TO_CONNECT, { value: true });
  }
  return error;
}
