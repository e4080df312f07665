import { NETWORKS, type AppConfig, type ConcreteNetwork } from '@app/config';

/** The networks whose queues this worker takes (WORKER_NETWORKS; all by default). */
export function workerNetworks(config: AppConfig): ConcreteNetwork[] {
  const chosen = config.worker.networks;
  return chosen === 'all' ? NETWORKS.filter((n): n is ConcreteNetwork => n !== 'evm') : chosen;
}
