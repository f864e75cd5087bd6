import { afterAll, beforeAll, inject } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/client';
import { createTestDatabase } from './databases';

/**
 * A database of the test file's own, cloned from the run's template before its tests with a pool of
 * `max` connections (`setup` then runs on it), closed and dropped after them. The handle answers once
 * the file's tests run.
 */
export function useTestDatabase(max: number, setup?: (handle: DbHandle) => Promise<unknown>): DbHandle {
  let opened: DbHandle | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    drop = database.drop;
    opened = createDb(database.url, { max });
    await setup?.(opened);
  });
  afterAll(async () => {
    await opened?.close();
    await drop?.();
  });
  const current = () => {
    if (!opened) throw new Error('the test database opens before the tests (beforeAll)');
    return opened;
  };
  return {
    get db() {
      return current().db;
    },
    get sql() {
      return current().sql;
    },
    close: () => current().close(),
  };
}
