import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
const { openDatabase } = await import('/work/wt/tokens/dist/src/db/open.js');
const { loadDemo } = await import('/work/wt/tokens/dist/src/demo/dataset.js');
const { getTranscriptPageOrThrow } = await import('/work/wt/tokens/dist/src/db/queries/transcripts.js');
const dir = mkdtempSync(join(tmpdir(), 'td-'));
const db = openDatabase(join(dir, 'd.db'), { create: true });
await loadDemo(db.sqlite, Date.parse('2026-11-30T12:00:00Z'));
const ids = db.sqlite.prepare('SELECT meeting_id AS id FROM transcripts ORDER BY word_count DESC').all().map(r => r.id);
const p = getTranscriptPageOrThrow(db.sqlite, ids[0], { offset: 0, limit: 200 }, { wordTimings: false });
const j = JSON.stringify(p);
console.log(j.slice(0, 1500));
console.log('total', countTokens(j), 'text', countTokens(JSON.stringify(p.text)), 'words', countTokens(JSON.stringify(p.words)), 'pag', countTokens(JSON.stringify(p.pagination)), 'turns', p.words.length);
const tuples = JSON.stringify(p.words.map(w => [w.offset, w.start_ms]));
console.log('tuples', countTokens(tuples));
const plain = p.text.replace(/^\[[\d:]+\] /gm, '');
console.log('plain', countTokens(plain), 'text raw', countTokens(p.text), 'short stamps', countTokens(p.text.replace(/^\[00:/gm, '[')));
const clock = (ms) => { const t = Math.floor(ms/1000), h = Math.floor(t/3600), m = Math.floor(t%3600/60), s = String(t%60).padStart(2,'0'); return h ? `${h}:${String(m).padStart(2,'0')}:${s}` : `${m}:${s}`; };
const mmss = (ms) => { const t = Math.floor(ms/1000), h = Math.floor(t/3600), m = Math.floor(t%3600/60), s = String(t%60).padStart(2,'0'); return h ? `${String(h).padStart(2,'0')}:${String(m).padStart(2,'0')}:${s}` : `${String(m).padStart(2,'0')}:${s}`; };
for (const id of ids) {
  const p = getTranscriptPageOrThrow(db.sqlite, id, { offset: 0, limit: 200 }, { wordTimings: false });
  const lines = p.text.split('\n');
  const variants = {
    A: p.text,
    B: lines.map((l, i) => l.replace(/^\[[\d:]+\]/, `[${clock(p.words[i].start_ms)}]`)).join('\n'),
    C: lines.map((l, i) => l.replace(/^\[[\d:]+\]/, `[${mmss(p.words[i].start_ms)}]`)).join('\n'),
  };
  const w = { obj: p.words, tup: p.words.map(w => [w.offset, w.start_ms]) };
  const r = {};
  for (const [k, t] of Object.entries(variants)) for (const [kw, ww] of Object.entries(w)) r[k+kw] = (countTokens(JSON.stringify({ ...p, text: t, words: ww })) / p.pagination.returned).toFixed(3);
  console.log(id, p.words.length, JSON.stringify(r));
}
