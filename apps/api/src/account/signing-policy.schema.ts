import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { SigningPolicy } from '@app/domain';
import { arrayOf, number, text, viewSchema } from '../http/docs/schema';

const perNetwork = (values: SchemaObject, description: string): SchemaObject => ({
  type: 'object',
  additionalProperties: values,
  description,
});

const RULES = {
  max_fee_gwei: perNetwork(
    { ...number, minimum: 0, exclusiveMinimum: true },
    'EVM networks: the most a transaction may offer per gas, in gwei. When a gas costs more on ' +
      'the network at signing, the operation fails with this rule.',
  ),
  daily_native_cap: perNetwork(
    text,
    'The most native currency (whole units, a decimal string) the wallet may sign away per UTC ' +
      'day, counted at signing as the most each transaction can cost.',
  ),
  allowed_recipients: {
    ...arrayOf(text),
    description: 'The only addresses the wallets may mint or transfer to (at most 1,000).',
  },
  allowed_contracts: {
    ...arrayOf(text),
    description:
      'The only existing contracts (EVM) or mints and collections (Solana) the wallets may ' +
      'write to (at most 1,000); creating a new asset is not restricted by it.',
  },
};

const OPTIONAL: (keyof SigningPolicy)[] = [
  'max_fee_gwei',
  'daily_native_cap',
  'allowed_recipients',
  'allowed_contracts',
];

export const SIGNING_POLICY_VIEW = viewSchema<SigningPolicy>('SigningPolicy', RULES, OPTIONAL);

/** The body of PUT /account/policies: the same shape (the view's $ref is for responses). */
export const SIGNING_POLICY_BODY: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: RULES,
};
