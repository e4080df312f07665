import { freePort } from '@test/support/service-process';
import { startTcpProxy, type TcpProxy } from '@app/localnet';

/**
 * Two TCP proxies in front of each chain's RPC (the service gets both as a comma list, so it can
 * fail over when one dies). The chains' ports are chosen here, before they start, because the
 * stack starts the chains and the service together.
 */
export async function rpcEndpointPairs(): Promise<{
  ports: { evmPort: number; solanaPort: number; solanaWsPort: number };
  env: Record<string, string>;
  evm: TcpProxy[];
  solana: TcpProxy[];
  close(): Promise<void>;
}> {
  const ports: number[] = [];
  while (ports.length < 3) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [evmPort, solanaPort, solanaWsPort] = ports;
  const pair = (url: string) => Promise.all([startTcpProxy(url), startTcpProxy(url)]);
  const evm = await pair(`http://127.0.0.1:${evmPort}`);
  const solana = await pair(`http://127.0.0.1:${solanaPort}`);
  return {
    ports: { evmPort, solanaPort, solanaWsPort },
    env: {
      LOCAL_EVM_RPC_URL: evm.map((proxy) => proxy.url).join(','),
      LOCAL_SOLANA_RPC_URL: solana.map((proxy) => proxy.url).join(','),
    },
    evm,
    solana,
    close: async () => {
      await Promise.all([...evm, ...solana].map((proxy) => proxy.close()));
    },
  };
}
