/**
 * @app/queue: Redis, the transport between the processes: queue names, the job and its payload
 * type, the producer, the pub/sub channels, and the leases by which workers share the queue
 * shards. Imports @app/config and @app/common only.
 */
export * from './account-backlog';
export * from './account-gauges';
export * from './account-scheduling';
export * from './api-key-revocations';
export * from './operation-jobs';
export * from './operation-queue';
export * from './queue-shard';
export * from './queue.module';
export * from './redis-channel';
export * from './redis-client';
export * from './redis-deadline';
export * from './redis.module';
export * from './settlement-channel';
export * from './shard-lease-keeper';
export * from './signing-policy-changes';
export * from './shard-leases';
export * from './shard-plan';
export * from './webhook-queue';
export * from './worker-close';
