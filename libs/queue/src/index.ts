/**
 * @app/queue: Redis, the transport between the api and the worker (queue names, job names and
 * their payload types live here). Imports @app/config only.
 */
export * from './redis.module';
