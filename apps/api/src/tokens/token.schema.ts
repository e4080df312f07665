import { boolean, dateTime, integer, nullable, text, viewSchema } from '../http/docs/schema';
import type { TokenView } from './token.presenter';

export const TOKEN_VIEW = viewSchema<TokenView>('TokenView', {
  network: text,
  mint_address: text,
  name: text,
  symbol: text,
  decimals: integer,
  supply: { type: 'string', description: 'The live supply in whole tokens, as of `as_of`' },
  owner: text,
  metadata_uri: nullable(text),
  created_at: dateTime,
  as_of: dateTime,
  cached: boolean,
});
