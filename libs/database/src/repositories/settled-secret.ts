/**
 * What each statement that settles an operation sets besides its outcome: a new mint's secret
 * ends with it (migration 1767600000000, whose constraint refuses a settled row that holds one).
 */
export const SECRET_DROPPED = `new_mint_secret = NULL, new_mint_key_id = NULL`;

/** SECRET_DROPPED as the entity's columns, for a TypeORM update. */
export const SECRET_DROPPED_COLUMNS = { newMintSecret: null, newMintKeyId: null } as const;
