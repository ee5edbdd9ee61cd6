#!/usr/bin/env node
// Start-up and per-call cost of `syntheo mcp` against a baseline SDK server with one no-op tool.
// Usage: npm run build && node bench/mcp-startup.mjs [runs=15] [calls=300]
// Measures spawn -> first response for a legacy `initialize` and for a modern `server/discover`
// (what every client pays, modern ones twice), and until tools/list is answered after initialize; then
// p50/p99 of sequential tools/call round trips. Besides wall time, it reads the child's CPU time (user +
// system, all threads, from /proc) at the response: on a busy machine that is the steadier number.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 15);
const calls = Number(process.argv[3] ?? 300);
const dir = mkdtempSync(join(tmpdir(), 'syntheo-bench-'));
const db = join(dir, 'bench.db');

const servers = {
  baseline: { args: [join(root, 'bench', 'mcp-baseline-server.mjs')], tool: { name: 'noop', arguments: {} } },
  syntheo: { args: [join(root, 'dist', 'src', 'cli', 'main.js'), 'mcp', '--db', db], tool: { name: 'list_meetings', arguments: { limit: 20 } } },
};

const clientInfo = { name: 'bench', version: '1.0.0' };
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo } };
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': clientInfo, 'io.modelcontextprotocol/clientCapabilities': {} };
const discover = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } };

/** CPU milliseconds used so far by a process (Linux /proc; NaN elsewhere). */
function cpuMs(pid) {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return NaN;
  const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks, USER_HZ = 100 on Linux
}

function start(server) {
  const child = spawn(process.execPath, server.args, { stdio: ['pipe', 'pipe', 'ignore'], cwd: root });
  const waiting = new Map();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  const request = (message) =>
    new Promise((resolve) => {
      waiting.set(message.id, resolve);
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  const stop = () => new Promise((resolve) => (child.once('exit', resolve), child.stdin.end()));
  return { request, notify: (m) => child.stdin.write(`${JSON.stringify(m)}\n`), stop, cpu: () => cpuMs(child.pid) };
}

async function firstResponse(server, message) {
  const t0 = performance.now();
  const s = start(server);
  const response = await s.request(message);
  const ms = performance.now() - t0;
  const cpu = s.cpu();
  if (response.error) throw new Error(`${message.method}: ${JSON.stringify(response.error)}`);
  await s.stop();
  return { ms, cpu };
}

/** initialize, initialized, then tools/list: what a client waits for before it can use a tool. */
async function toolsListed(server) {
  const t0 = performance.now();
  const s = start(server);
  await s.request(initialize);
  s.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const response = await s.request({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const ms = performance.now() - t0;
  const cpu = s.cpu();
  if (response.error) throw new Error(JSON.stringify(response.error));
  await s.stop();
  return { ms, cpu };
}

async function perCall(server) {
  const s = start(server);
  await s.request(initialize);
  s.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const times = [];
  for (let i = 0; i < calls + 20; i++) {
    const t0 = performance.now();
    const r = await s.request({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: server.tool });
    if (r.error) throw new Error(JSON.stringify(r.error));
    if (i >= 20) times.push(performance.now() - t0); // the first calls warm up (and open the database)
  }
  await s.stop();
  return times;
}

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const fmt = (ms) => ms.toFixed(1);

const kinds = ['initialize', 'discover', 'tools/list'];
const startup = { baseline: {}, syntheo: {} };
for (const name of Object.keys(startup)) for (const kind of kinds) startup[name][kind] = [];
await firstResponse(servers.syntheo, initialize); // creates the database file once, outside the measure
for (let i = 0; i < runs; i++) {
  for (const name of ['baseline', 'syntheo']) {
    startup[name].initialize.push(await firstResponse(servers[name], initialize));
    startup[name].discover.push(await firstResponse(servers[name], discover));
    startup[name]['tools/list'].push(await toolsListed(servers[name]));
  }
}
const callTimes = { baseline: await perCall(servers.baseline), syntheo: await perCall(servers.syntheo) };

console.log(`spawn -> response, median of ${runs} runs: wall ms (child CPU ms)`);
for (const kind of kinds) {
  const row = (name, key) => median(startup[name][kind].map((r) => r[key]));
  const [bw, sw, bc, sc] = [row('baseline', 'ms'), row('syntheo', 'ms'), row('baseline', 'cpu'), row('syntheo', 'cpu')];
  console.log(`  ${kind.padEnd(10)} baseline ${fmt(bw)} (${fmt(bc)})  syntheo ${fmt(sw)} (${fmt(sc)})  ratio wall ${(sw / bw).toFixed(2)}, cpu ${(sc / bc).toFixed(2)}`);
}
console.log(`tools/call round trip over ${calls} calls (ms): noop on baseline vs list_meetings(limit 20, empty db) on syntheo`);
for (const name of ['baseline', 'syntheo']) console.log(`  ${name.padEnd(9)} p50 ${callTimes[name] && fmt(quantile(callTimes[name], 0.5))}  p99 ${fmt(quantile(callTimes[name], 0.99))}`);
rmSync(dir, { recursive: true, force: true });
