// The app's only stylesheet and script, served from /assets/ (the CSP allows nothing inline). The script
// only enhances pages that work without it: live import progress (server-sent events), click a turn to
// play the recording from there, drop a file on the upload form.

export const CSS = `
:root { --fg: #1b1f24; --muted: #4d5560; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa; --accent: #0a58ca; --ok: #116329; --bad: #a40e26; --warn: #7d4e00; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
header.top { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; padding: 8px 24px; border-bottom: 1px solid var(--line); background: var(--soft); }
header.top .brand { font-weight: 700; color: var(--fg); text-decoration: none; font-size: 1.1rem; }
header.top nav ul { display: flex; gap: 4px; list-style: none; margin: 0; padding: 0; }
header.top nav a { display: block; padding: 4px 10px; border-radius: 6px; text-decoration: none; }
header.top nav a[aria-current="page"] { background: var(--fg); color: var(--bg); }
header.top form { margin-left: auto; display: flex; gap: 6px; }
main { padding: 16px 24px 48px; max-width: 1200px; }
h1 { font-size: 1.6rem; margin: 8px 0 12px; }
h2 { font-size: 1.2rem; margin: 24px 0 8px; }
.muted { color: var(--muted); }
.layout { display: grid; grid-template-columns: 240px 1fr; gap: 24px; }
@media (max-width: 800px) { .layout { grid-template-columns: 1fr; } }
aside ul { list-style: none; padding-left: 12px; margin: 4px 0; }
aside > ul { padding-left: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin-bottom: 12px; }
label { display: flex; flex-direction: column; font-size: 0.9rem; color: var(--muted); }
label.inline { flex-direction: row; gap: 6px; align-items: center; color: var(--fg); }
input, select, button { font: inherit; }
input[type="text"], input[type="search"], input[type="date"], input[type="url"], select { padding: 4px 6px; border: 1px solid #8c959f; border-radius: 4px; color: var(--fg); background: var(--bg); }
button, .button { display: inline-block; padding: 5px 12px; border: 1px solid #8c959f; border-radius: 6px; background: var(--soft); color: var(--fg); cursor: pointer; text-decoration: none; }
button.primary { background: #1f6f3b; border-color: #1f6f3b; color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
.pager { display: flex; gap: 12px; align-items: center; margin: 12px 0; }
.notice { padding: 8px 12px; border-radius: 6px; border: 1px solid var(--line); background: var(--soft); margin: 8px 0 16px; }
.notice.ok { border-color: var(--ok); color: var(--ok); }
.notice.bad { border-color: var(--bad); color: var(--bad); }
.notice.warn { border-color: var(--warn); color: var(--warn); }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 0.85rem; border: 1px solid currentColor; }
.badge.done, .badge.applied { color: var(--ok); }
.badge.failed, .badge.stale { color: var(--bad); }
.badge.declined { color: var(--muted); }
pre, .note { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: var(--soft); padding: 12px; border-radius: 6px; border: 1px solid var(--line); }
.diff { font: 0.9rem/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; }
.diff div { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 8px; }
.diff .add { background: #dafbe1; }
.diff .del { background: #ffebe9; }
.diff .hunk { background: #ddf4ff; color: var(--muted); }
.turn { display: grid; grid-template-columns: 90px 1fr; gap: 8px; padding: 6px 0; border-bottom: 1px solid var(--soft); }
.turn .when { color: var(--muted); font-variant-numeric: tabular-nums; }
.turn .who { font-weight: 600; margin-right: 6px; }
.turn.hit { background: #fff8c5; }
.turn button.seek { padding: 0 6px; font-size: 0.85rem; }
.hits mark { background: #fff8c5; color: inherit; }
.drop { border: 2px dashed #8c959f; border-radius: 8px; padding: 16px; }
.drop.over { border-color: var(--accent); background: #ddf4ff; }
audio { width: 100%; margin: 8px 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
progress { width: 160px; }
`;

export const JS = `
'use strict';
(function () {
  // Live import progress: the server sends one event per change; rows are replaced in place.
  var live = document.querySelector('[data-events]');
  if (live && window.EventSource) {
    var source = new EventSource(live.getAttribute('data-events'));
    source.addEventListener('job', function (event) {
      var job;
      try { job = JSON.parse(event.data); } catch (e) { return; }
      var row = document.getElementById('job-' + job.id);
      if (!row) return;
      var set = function (name, text) {
        var cell = row.querySelector('[data-field="' + name + '"]');
        if (cell) cell.textContent = text;
      };
      set('state', job.state);
      set('progress', job.progress);
      set('elapsed', job.elapsed);
      set('error', job.error || '');
      row.setAttribute('data-state', job.state);
      var bar = row.querySelector('progress');
      if (bar && typeof job.fraction === 'number') bar.value = job.fraction;
    });
    source.addEventListener('end', function () { source.close(); });
  }

  // Click a turn's time to play the recording from there.
  var audio = document.getElementById('recording');
  if (audio) {
    document.addEventListener('click', function (event) {
      var button = event.target.closest && event.target.closest('button[data-seek]');
      if (!button) return;
      audio.currentTime = Number(button.getAttribute('data-seek')) / 1000;
      audio.play().catch(function () {});
    });
  }

  // Drop a recording on the upload form.
  var drop = document.querySelector('.drop');
  if (drop) {
    var input = drop.querySelector('input[type="file"]');
    ['dragenter', 'dragover'].forEach(function (name) {
      drop.addEventListener(name, function (event) { event.preventDefault(); drop.classList.add('over'); });
    });
    ['dragleave', 'drop'].forEach(function (name) {
      drop.addEventListener(name, function () { drop.classList.remove('over'); });
    });
    drop.addEventListener('drop', function (event) {
      event.preventDefault();
      if (!input || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
      input.files = event.dataTransfer.files;
      drop.closest('form').requestSubmit();
    });
  }
})();
`;
