/**
 * @app/queue: Redis, the transport between the api and the worker: queue names, the job and its
 * payload type, the producer, and the settlement channel. Imports @app/config only.
 */
export * from './operation-jobs';
export * from './operation-queue';
export * from './queue.module';
export * from './redis.module';
export * from './settlement-channel';
