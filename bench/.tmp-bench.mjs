import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openDatabase } from '../dist/src/db/open.js';
const note = (p, bytes) => { const out = []; let size = 0; for (let i = 0; ; i++) { const l = `${p} line ${i}: ${'word '.repeat(8)}\n`; if (size + l.length > bytes) return out.join(''); out.push(l); size += l.length; } };
const dir = mkdtempSync(join(tmpdir(), 'dl-bench-'));
const path = join(dir, 'b.db');
const db = openDatabase(path, { create: true });
const now = new Date().toISOString();
db.sqlite.prepare("INSERT INTO meetings (id, title, started_at, note, source, created_at, updated_at) VALUES ('mtg_bench', 'B', ?, ?, 'user', ?, ?)").run(now, note('old', 1 << 20), now, now);
db.close();
const transport = new StdioClientTransport({ command: process.execPath, args: ['dist/src/cli/main.js', 'mcp', '--db', path], stderr: 'pipe' });
const client = new Client({ name: 'bench', version: '1' });
await client.connect(transport);
let t = performance.now();
const r = await client.callTool({ name: 'propose_memo_edit', arguments: { meeting_id: 'mtg_bench', content: note('new', 1 << 20) } });
console.log('propose_memo_edit ms', (performance.now() - t).toFixed(0));
for (let i = 0; i < 5; i++) {
  t = performance.now();
  await client.callTool({ name: 'get_proposal', arguments: { proposal_id: r.structuredContent.id } });
  console.log('get_proposal ms', (performance.now() - t).toFixed(0));
}
console.log('server peak RSS MB', (Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, 'utf8'))[1]) / 1024).toFixed(0));
await client.close();
