import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';
import { returnedRows } from './returned-rows';

/** A secret as stored: AES-GCM ciphertext (see SecretBox) and the master key it is sealed under. */
export interface StoredSealedSecret {
  ciphertext: Buffer;
  keyId: string;
}

export interface WebhookEndpointRow {
  id: string;
  accountId: string;
  url: string;
  description: string;
  /** Empty: every event type. */
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  secret: StoredSealedSecret;
  /** During a rotation's grace: the secret that also signs until `previousSecretExpiresAt`. */
  previousSecret: StoredSealedSecret | null;
  previousSecretExpiresAt: Date | null;
  /** The first failure since the last success (null while the endpoint answers). */
  failingSince: Date | null;
  pausedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointChanges {
  url?: string;
  description?: string;
  eventTypes?: string[];
  enabled?: boolean;
}

interface RawEndpoint extends Omit<WebhookEndpointRow, 'secret' | 'previousSecret'> {
  secretCiphertext: Buffer;
  secretKeyId: string;
  previousSecretCiphertext: Buffer | null;
  previousSecretKeyId: string | null;
}

const COLUMNS = `w.id, w.account_id AS "accountId", w.url, w.description,
  w.event_types AS "eventTypes", w.enabled, w.disabled_reason AS "disabledReason",
  w.secret_ciphertext AS "secretCiphertext", w.secret_key_id AS "secretKeyId",
  w.previous_secret_ciphertext AS "previousSecretCiphertext",
  w.previous_secret_key_id AS "previousSecretKeyId",
  w.previous_secret_expires_at AS "previousSecretExpiresAt", w.failing_since AS "failingSince",
  w.paused_until AS "pausedUntil", w.created_at AS "createdAt", w.updated_at AS "updatedAt"`;

/** An account's webhook endpoints (migration 1765400000000), and the pumps' lease on them. */
@Injectable()
export class WebhookEndpointRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Inserts the endpoint unless its account holds `max` already; false then. The account row is
   * locked first (as for API keys), so concurrent creations for one account count one by one.
   */
  async insertWithinCap(
    endpoint: Pick<WebhookEndpointRow, 'id' | 'accountId' | 'url' | 'description' | 'eventTypes'>,
    enabled: boolean,
    secret: StoredSealedSecret,
    max: number,
    scope: WorkScope,
  ): Promise<WebhookEndpointRow | null> {
    const manager = managerOf(scope);
    await manager.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [
      endpoint.accountId,
    ]);
    const [{ count }]: { count: number }[] = await manager.query(
      `SELECT count(*)::int AS count FROM webhook_endpoints WHERE account_id = $1`,
      [endpoint.accountId],
    );
    if (count >= max) return null;
    const rows: RawEndpoint[] = await manager.query(
      `INSERT INTO webhook_endpoints AS w
         (id, account_id, url, description, event_types, enabled, secret_ciphertext, secret_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        endpoint.id,
        endpoint.accountId,
        endpoint.url,
        endpoint.description,
        endpoint.eventTypes,
        enabled,
        secret.ciphertext,
        secret.keyId,
      ],
    );
    return toRow(rows[0]);
  }

  async listForAccount(accountId: string): Promise<WebhookEndpointRow[]> {
    const rows: RawEndpoint[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM webhook_endpoints w WHERE w.account_id = $1 ORDER BY w.created_at`,
      [accountId],
    );
    return rows.map(toRow);
  }

  async find(accountId: string, id: string): Promise<WebhookEndpointRow | null> {
    const rows: RawEndpoint[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM webhook_endpoints w WHERE w.account_id = $1 AND w.id = $2`,
      [accountId, id],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /**
   * Applies the changes given. Enabling an endpoint (again) forgets its failures: it starts with
   * a clean record, and its pending deliveries are due at once.
   */
  async update(
    accountId: string,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpointRow | null> {
    const rows: RawEndpoint[] = returnedRows(
      await this.dataSource.query(
        `UPDATE webhook_endpoints w SET
           url = COALESCE($3, w.url),
           description = COALESCE($4, w.description),
           event_types = COALESCE($5, w.event_types),
           enabled = COALESCE($6, w.enabled),
           disabled_reason = CASE WHEN $6 IS NULL THEN w.disabled_reason ELSE NULL END,
           failing_since = CASE WHEN $6 AND NOT w.enabled THEN NULL ELSE w.failing_since END,
           paused_until = CASE WHEN $6 AND NOT w.enabled THEN NULL ELSE w.paused_until END,
           updated_at = now()
         WHERE w.account_id = $1 AND w.id = $2 RETURNING ${COLUMNS}`,
        [
          accountId,
          id,
          changes.url ?? null,
          changes.description ?? null,
          changes.eventTypes ?? null,
          changes.enabled ?? null,
        ],
      ),
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  async delete(
    accountId: string,
    id: string,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<WebhookEndpointRow | null> {
    const rows: RawEndpoint[] = returnedRows(
      await managerOf(scope).query(
        `DELETE FROM webhook_endpoints w WHERE w.account_id = $1 AND w.id = $2 RETURNING ${COLUMNS}`,
        [accountId, id],
      ),
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** A new signing secret; the current one keeps signing until `previousExpiresAt` (if given). */
  async rotateSecret(
    accountId: string,
    id: string,
    secret: StoredSealedSecret,
    previous: { secret: StoredSealedSecret; expiresAt: Date } | null,
    scope: WorkScope,
  ): Promise<WebhookEndpointRow | null> {
    const rows: RawEndpoint[] = returnedRows(
      await managerOf(scope).query(
        `UPDATE webhook_endpoints w SET secret_ciphertext = $3, secret_key_id = $4,
           previous_secret_ciphertext = $5, previous_secret_key_id = $6,
           previous_secret_expires_at = $7, updated_at = now()
         WHERE w.account_id = $1 AND w.id = $2 RETURNING ${COLUMNS}`,
        [
          accountId,
          id,
          secret.ciphertext,
          secret.keyId,
          previous?.secret.ciphertext ?? null,
          previous?.secret.keyId ?? null,
          previous?.expiresAt ?? null,
        ],
      ),
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /**
   * Takes the endpoint for one pump until now + `leaseMs`: only an enabled, unpaused endpoint
   * whose lease is free or lapsed (its holder died). Null when another pump holds it.
   */
  async takeLease(id: string, owner: string, leaseMs: number): Promise<WebhookEndpointRow | null> {
    const rows: RawEndpoint[] = returnedRows(
      await this.dataSource.query(
        `UPDATE webhook_endpoints w SET lease_owner = $2,
           lease_until = clock_timestamp() + $3 * interval '1 millisecond'
         WHERE w.id = $1 AND w.enabled
           AND (w.paused_until IS NULL OR w.paused_until <= clock_timestamp())
           AND (w.lease_until IS NULL OR w.lease_until < clock_timestamp())
         RETURNING ${COLUMNS}`,
        [id, owner, leaseMs],
      ),
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL
       WHERE id = $1 AND lease_owner = $2`,
      [id, owner],
    );
  }

  /** The endpoint answered: it is no longer failing. */
  async markAnswering(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_endpoints SET failing_since = NULL
       WHERE id = $1 AND failing_since IS NOT NULL`,
      [id],
    );
  }

  /** The endpoint failed at `at`: returns since when it has been failing (this or earlier). */
  async markFailing(id: string, at: Date): Promise<Date> {
    const rows: { failingSince: Date }[] = returnedRows(
      await this.dataSource.query(
        `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2)
         WHERE id = $1 RETURNING failing_since AS "failingSince"`,
        [id, at],
      ),
    );
    return rows[0]?.failingSince ?? at;
  }

  async pause(id: string, until: Date): Promise<void> {
    await this.dataSource.query(`UPDATE webhook_endpoints SET paused_until = $2 WHERE id = $1`, [
      id,
      until,
    ]);
  }

  /** Disables an enabled endpoint, in the caller's transaction; false if it was not enabled. */
  async disable(id: string, reason: string, scope: WorkScope): Promise<boolean> {
    const rows: unknown[] = returnedRows(
      await managerOf(scope).query(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, paused_until = NULL,
           updated_at = now()
         WHERE id = $1 AND enabled RETURNING id`,
        [id, reason],
      ),
    );
    return rows.length === 1;
  }

  /**
   * Endpoints a pump should take now: enabled, not paused, lease free, with a due delivery (one
   * probe of the due index per endpoint). The sweep's safety net for lost notifications or jobs.
   */
  async listDue(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT w.id FROM webhook_endpoints w
       WHERE w.enabled
         AND (w.paused_until IS NULL OR w.paused_until <= now())
         AND (w.lease_until IS NULL OR w.lease_until < now())
         AND EXISTS (SELECT 1 FROM webhook_deliveries d
                     WHERE d.endpoint_id = w.id AND d.status = 'pending'
                       AND d.next_attempt_at <= now())
       LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }
}

function toRow(raw: RawEndpoint): WebhookEndpointRow {
  const { secretCiphertext, secretKeyId, previousSecretCiphertext, previousSecretKeyId, ...rest } =
    raw;
  return {
    ...rest,
    secret: { ciphertext: secretCiphertext, keyId: secretKeyId },
    previousSecret:
      previousSecretCiphertext && previousSecretKeyId
        ? { ciphertext: previousSecretCiphertext, keyId: previousSecretKeyId }
        : null,
  };
}
