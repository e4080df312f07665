/**
 * @app/queue: Redis, the transport between the processes: queue names, the job and its payload
 * type, the producer, and the pub/sub channels. Imports @app/config and @app/common only.
 */
export * from './api-key-revocations';
export * from './operation-jobs';
export * from './operation-queue';
export * from './queue.module';
export * from './redis-channel';
export * from './redis-deadline';
export * from './redis.module';
export * from './settlement-channel';
export * from './webhook-queue';
