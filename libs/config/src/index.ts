/**
 * @app/config: the one validated view of the environment. Nothing else reads process.env.
 * Imports nothing of this project.
 */
export * from './app-config';
export * from './config.module';
export * from './load-config';
export * from './networks';
export * from './network-table';
