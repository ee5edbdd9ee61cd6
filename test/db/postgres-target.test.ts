import { describe, expect, it } from 'vitest';
import { describeTarget, pgTarget } from '../../src/db/model/postgres.js';

// How every PostgreSQL message names the database: host, port, database and user, never the password.

describe('describeTarget / pgTarget', () => {
  it('names host, port and database of a TCP URL, and the user, without the password', () => {
    expect(pgTarget('postgresql://ann:s3cret@db.internal:6543/team')).toEqual({ host: 'db.internal', port: 6543, database: 'team', user: 'ann' });
    expect(describeTarget('postgres://ann:s3cret@db.internal/team')).toBe('db.internal:5432/team');
  });

  it('a Unix socket given as ?host=, with or without a login before an empty host', () => {
    expect(pgTarget('postgresql://postgres@/syntheo_1?host=/tmp/pg&port=5433')).toEqual({ host: '/tmp/pg', port: 5433, database: 'syntheo_1', user: 'postgres' });
    expect(describeTarget('postgres://ann:s3cret@/team?host=%2Frun%2Fpostgresql')).toBe('/run/postgresql:5432/team');
    expect(describeTarget('postgresql:///team?host=/run/postgresql')).toBe('/run/postgresql:5432/team');
  });

  it('a login with no host and no socket is the local server; what cannot be parsed says so', () => {
    expect(describeTarget('postgresql://ann@/team')).toBe('localhost:5432/team');
    expect(describeTarget('postgresql://ann@')).toBe('localhost:5432/ann');
    expect(describeTarget('postgresql://[oops/team')).toBe('(invalid URL):5432/');
  });
});
