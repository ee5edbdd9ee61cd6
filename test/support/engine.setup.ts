import { afterAll, expect } from 'vitest';
import { servedCount } from './engine.js';

// setupFiles of the postgres project: a file it runs must have served its database through serve()
// (test/support/engine.ts); one that talks to its SQLite file directly would pass without testing PostgreSQL.
afterAll(() => {
  expect(servedCount(), 'this file runs in the postgres project but never called serve() (test/support/engine.ts)').toBeGreaterThan(0);
});
