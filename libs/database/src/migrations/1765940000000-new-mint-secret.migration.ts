import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ephemeral_secret` is kept as long as the operation (a re-signing after an expired blockhash
 * needs the same new mint): it is the sealed secret of the mint the operation creates, and is
 * named so. The event trigger leaves it out of operation snapshots by name, so it is replaced
 * with the new names in the same migration: a snapshot never carries the secret.
 */
export class NewMintSecret1765940000000 implements MigrationInterface {
  name = 'NewMintSecret1765940000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations RENAME COLUMN ephemeral_secret TO new_mint_secret`);
    await runner.query(`ALTER TABLE operations RENAME COLUMN ephemeral_key_id TO new_mint_key_id`);
    await runner.query(operationStatusEvent(['new_mint_secret', 'new_mint_key_id']));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations RENAME COLUMN new_mint_secret TO ephemeral_secret`);
    await runner.query(`ALTER TABLE operations RENAME COLUMN new_mint_key_id TO ephemeral_key_id`);
    await runner.query(operationStatusEvent(['ephemeral_secret', 'ephemeral_key_id']));
  }
}

/** The operation event trigger's function, its snapshot without the columns named. */
function operationStatusEvent(secretColumns: string[]): string {
  const withoutSecrets = secretColumns.map((column) => ` - '${column}'`).join('');
  return `
    CREATE OR REPLACE FUNCTION operation_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (NEW.status IS NOT DISTINCT FROM OLD.status
          OR NEW.status NOT IN ('submitted', 'confirmed', 'failed')) THEN
        RETURN NULL;
      END IF;
      IF NEW.status = 'signed' THEN
        RETURN NULL;
      END IF;
      INSERT INTO account_events (account_id, type, operation_id, data)
        VALUES (NEW.account_id, 'operation.' || NEW.status, NEW.id,
                to_jsonb(NEW)${withoutSecrets});
      RETURN NULL;
    END
    $$`;
}
