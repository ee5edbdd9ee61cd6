import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/db.js';
import { SYSTEM_TOOLS, missingLine, missingTools, systemToolsRequired } from '../support/system-tools.js';

const tmp = tempDir('syntheo-tools-');
afterAll(tmp.cleanup);

describe('the system-tools helper the tests skip with', () => {
  it('finds ffmpeg only on the PATH it is given', () => {
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    expect(missingTools(['ffmpeg'], { PATH: empty })).toEqual(['ffmpeg']);
    const real = SYSTEM_TOOLS.ffmpeg.present();
    if (real) {
      const bin = join(tmp.dir, 'bin');
      mkdirSync(bin);
      symlinkSync('/usr/bin/ffmpeg', join(bin, 'ffmpeg'));
      expect(missingTools(['ffmpeg'], { PATH: bin })).toEqual([]);
    }
  });

  it('requires the tools under CI unless told otherwise, and names the Debian packages', () => {
    expect(systemToolsRequired({})).toBe(false);
    expect(systemToolsRequired({ CI: 'true' })).toBe(true);
    expect(systemToolsRequired({ CI: 'true', SYNTHEO_REQUIRE_SYSTEM_TOOLS: '0' })).toBe(false);
    expect(systemToolsRequired({ SYNTHEO_REQUIRE_SYSTEM_TOOLS: '1' })).toBe(true);
    expect(missingLine('pocketsphinx', false)).toBe('Skipping the tests that need pocketsphinx and its US English model (not found): sudo apt-get install pocketsphinx pocketsphinx-en-us');
  });
});
