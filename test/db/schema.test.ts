import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package.js';

const drizzleKit = join(PACKAGE_ROOT, 'node_modules', '.bin', 'drizzle-kit');

/** Runs `drizzle-kit generate` against a copy of the committed migrations; returns the new files it wrote. */
function generateAgainstCopy(schemaPath: string): string[] {
  // drizzle-kit mangles an absolute --out when meta/ exists, so the copy lives under the package root.
  const rel = `.vitest-tmp/drizzle-check-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const out = join(PACKAGE_ROOT, rel);
  mkdirSync(join(PACKAGE_ROOT, '.vitest-tmp'), { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'drizzle'), out, { recursive: true });
  const before = new Set(readdirSync(out));
  try {
    execFileSync(drizzleKit, ['generate', '--dialect', 'sqlite', '--schema', schemaPath, '--out', `./${rel}`], { cwd: PACKAGE_ROOT, stdio: 'pipe' });
    return readdirSync(out).filter((f) => !before.has(f));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('schema and committed migrations', () => {
  it('agree: drizzle-kit generate finds nothing to migrate', () => {
    expect(generateAgainstCopy('./src/db/schema/index.ts')).toEqual([]);
  });

  it('the check fails when the schema gains a column the migrations lack', () => {
    // A schema copy with one extra column: the same check must then produce a migration.
    const dir = join(PACKAGE_ROOT, '.vitest-tmp', `schema-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      cpSync(join(PACKAGE_ROOT, 'src', 'db', 'schema'), dir, { recursive: true });
      const settings = join(dir, 'settings.ts');
      writeFileSync(settings, readFileSync(settings, 'utf8').replace("updatedAt: text('updated_at').notNull(),", "updatedAt: text('updated_at').notNull(),\n  extra: text('extra'),"));
      const created = generateAgainstCopy(`./.vitest-tmp/schema-${process.pid}/index.ts`);
      expect(created.filter((f) => f.endsWith('.sql'))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
