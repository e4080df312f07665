import { NETWORKS } from '@app/config';
import {
  arrayOf,
  chainFamily,
  integer,
  named,
  nullable,
  oneOf,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { NetworkView } from './networks.controller';

const NETWORK_VIEW = viewSchema<NetworkView>('NetworkView', {
  network: oneOf(NETWORKS),
  resolved_network: text,
  family: chainFamily,
  chain_id: nullable(integer),
  currency: text,
  explorer_tx_url: nullable({ type: 'string', description: 'A template with `{tx}`' }),
  explorer_address_url: nullable({ type: 'string', description: 'A template with `{address}`' }),
});

export const NETWORK_LIST = named('NetworkList', strictObject({ networks: arrayOf(NETWORK_VIEW) }));
