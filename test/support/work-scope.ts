/**
 * Repositories take a WorkScope, which outside libs/database is opaque; tests hold TypeORM
 * managers (`dataSource.manager`, or a `dataSource.transaction` callback's) and pass them as one.
 */
export { scopeOf } from '@app/database/unit-of-work';
