import { it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { openDatabase } from '../src/db/open.js';
import { listMeetings } from '../src/db/queries/meetings.js';
import { meetingRow } from '../src/mcp/schema.js';
it('ratio', () => {
  const db = openDatabase('bench/.data/bench-2000-200000.db', { create: false });
  const r = listMeetings(db.sqlite, {}, { limit: 200, offset: 0 }).meetings.map(meetingRow);
  const j = JSON.stringify(r);
  console.log('meetings', Buffer.byteLength(j), countTokens(j), Buffer.byteLength(j) / countTokens(j));
  const p = [{ id: 'prp_1xxes85c5f7kfdcq', meeting_id: 'mtg_1xxes85c5f7kfdcq', meeting_title: 'Weekly engineering and product planning sync #12 — roadmap, hiring and budget', kind: 'memo', target_id: null, status: 'pending', stale: false, created_at: '2026-11-27T08:47:18.796Z' }];
  const pj = JSON.stringify(p);
  console.log('proposal', Buffer.byteLength(pj), countTokens(pj), Buffer.byteLength(pj) / countTokens(pj));
  const cjk = JSON.stringify([{ id: 'mtg_1xxes85c5f7kfdcq', title: '每周工程与产品规划同步会议第十二次路线图招聘与预算', started_at: '2026-11-27T08:47:18.796Z', folder_path: '工程/平台团队' }]);
  console.log('cjk', Buffer.byteLength(cjk), countTokens(cjk), Buffer.byteLength(cjk) / countTokens(cjk));
  const emoji = JSON.stringify([{ id: 'mtg_1xxes85c5f7kfdcq', title: '🚀🔥✅🎉📈🧪🛠️💡🚀🔥✅🎉📈🧪🛠️💡', started_at: '2026-11-27T08:47:18.796Z', folder_path: null }]);
  console.log('emoji', Buffer.byteLength(emoji), countTokens(emoji), Buffer.byteLength(emoji) / countTokens(emoji));
});
