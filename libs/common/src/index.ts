/**
 * @app/common: the envelope, the domain error type with its codes, ids.
 * Imports nothing of this project.
 */
export * from './api-key-shape';
export * from './app-error';
export * from './asset-intent';
export * from './bounded-cache';
export * from './bounded-text';
export * from './chunks';
export * from './clamp';
export * from './envelope';
export * from './group-writer';
export * from './ids';
export * from './logging';
export * from './metrics';
export * from './time-slices';
export * from './ttl-cache';
export * from './webhooks/webhook-signature';
