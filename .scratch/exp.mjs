import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
const { openDatabase } = await import('/work/wt/tokens/dist/src/db/open.js');
const { exportMeetingOrThrow } = await import('/work/wt/tokens/dist/src/db/queries/export.js');
const db = openDatabase(process.argv[2], { create: false });
for (const r of db.sqlite.prepare('SELECT meeting_id AS id FROM transcripts ORDER BY word_count DESC LIMIT 3').all()) {
  const e = exportMeetingOrThrow(db.sqlite, r.id);
  const j = JSON.stringify(e);
  const t = countTokens(j);
  const seg = JSON.stringify(e.transcripts[0].segments[3]);
  console.log(r.id, j.length, Buffer.byteLength(j), t, (j.length / t).toFixed(2), seg.slice(0, 300), (seg.length / countTokens(seg)).toFixed(2));
}
