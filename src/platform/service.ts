import { dataDir, configHome, pathFor, type PlatformEnv } from './paths.js';
import type { Installation } from './installation.js';

// The worker as a per-user background service: a systemd user unit (Linux), a launchd LaunchAgent
// (macOS), a Task Scheduler task started at logon (Windows). Pure functions of what to run and where,
// so each platform's file is generated and checked on any machine.

export const SYSTEMD_UNIT = 'syntheo-worker.service';
export const LAUNCHD_LABEL = 'studio.syntheo.worker';
export const WINDOWS_TASK = 'Syntheo Worker';

export interface ServiceSpec extends Installation {
  /** Absolute database path, passed as --db so the service uses the database chosen at install time. */
  db: string;
  /** PATH for the worker (ffmpeg is looked up on it); launchd's default has no Homebrew folder. */
  path?: string;
}

export type ServiceKind = 'systemd' | 'launchd' | 'task-scheduler';

export function serviceKind(platform: NodeJS.Platform): ServiceKind {
  return platform === 'darwin' ? 'launchd' : platform === 'win32' ? 'task-scheduler' : 'systemd';
}

export function workerArgs(spec: ServiceSpec): string[] {
  return [spec.script, 'worker', '--db', spec.db];
}

// --- systemd -------------------------------------------------------------------------------------

/** One ExecStart= word: quoted when needed; % and $ escaped (systemd expands both). */
function systemdWord(word: string): string {
  const escaped = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? escaped : `"${escaped}"`;
}

/** An Environment= assignment, quoted as a whole. */
function systemdEnv(name: string, value: string): string {
  return `Environment="${name}=${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

export function systemdUnit(spec: ServiceSpec): string {
  return [
    '# Written by `syntheo service install`; remove with `syntheo service uninstall`.',
    '# API keys (only if your servers need them) go in ~/.config/syntheo/worker.env, mode 600:',
    '#   SYNTHEO_TRANSCRIPTION_API_KEY=...',
    '#   SYNTHEO_LLM_API_KEY=...',
    '',
    '[Unit]',
    'Description=Syntheo import worker (transcribes and summarises imported recordings)',
    'After=network-online.target',
    'Wants=network-online.target',
    // A worker that cannot start (bad setting, unreadable database) should not restart forever.
    'StartLimitIntervalSec=300',
    'StartLimitBurst=5',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[spec.node, ...workerArgs(spec)].map(systemdWord).join(' ')}`,
    ...(spec.path ? [systemdEnv('PATH', spec.path)] : []),
    'EnvironmentFile=-%h/.config/syntheo/worker.env',
    // SIGTERM gives imports in flight 30 s to finish: give it more than that.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=60',
    'Restart=on-failure',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

// --- launchd -------------------------------------------------------------------------------------

export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export function launchdPlist(spec: ServiceSpec & { logFile: string }): string {
  const str = (s: string) => `<string>${xmlEscape(s)}</string>`;
  const env = spec.path ? ['  <key>EnvironmentVariables</key>', '  <dict>', `    <key>PATH</key>${str(spec.path)}`, '  </dict>'] : [];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `syntheo service install`; remove with `syntheo service uninstall`. -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${str(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[spec.node, ...workerArgs(spec)].map((a) => `    ${str(a)}`),
    '  </array>',
    ...env,
    '  <key>RunAtLoad</key><true/>',
    // Restarted when it exits with an error, not after a clean stop.
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key><false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key><integer>10</integer>',
    '  <key>ProcessType</key><string>Background</string>',
    // SIGTERM gives imports in flight 30 s to finish.
    '  <key>ExitTimeOut</key><integer>60</integer>',
    `  <key>StandardOutPath</key>${str(spec.logFile)}`,
    `  <key>StandardErrorPath</key>${str(spec.logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

// --- Windows Task Scheduler ----------------------------------------------------------------------

/** One argument as CommandLineToArgvW reads it back. */
export function windowsArg(arg: string): string {
  if (arg !== '' && !/[\s"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/** Task Scheduler XML (write it as UTF-16 with a BOM: what `schtasks /Create /XML` expects). */
export function windowsTaskXml(spec: ServiceSpec & { userId?: string; workingDir: string }): string {
  const user = spec.userId ? `<UserId>${xmlEscape(spec.userId)}</UserId>` : '';
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    '    <Description>Syntheo import worker (transcribes and summarises imported recordings). Written by syntheo service install.</Description>',
    `    <URI>\\${xmlEscape(WINDOWS_TASK)}</URI>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    `    <LogonTrigger><Enabled>true</Enabled>${user}</LogonTrigger>`,
    '  </Triggers>',
    '  <Principals>',
    `    <Principal id="Author">${user}<LogonType>InteractiveToken</LogonType><RunLevel>LeastPrivilege</RunLevel></Principal>`,
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <AllowHardTerminate>true</AllowHardTerminate>',
    '    <StartWhenAvailable>true</StartWhenAvailable>',
    '    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>',
    '    <AllowStartOnDemand>true</AllowStartOnDemand>',
    '    <Enabled>true</Enabled>',
    '    <Hidden>false</Hidden>',
    '    <RunOnlyIfIdle>false</RunOnlyIfIdle>',
    // No time limit: the worker runs for the whole session.
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <Priority>7</Priority>',
    '    <RestartOnFailure><Interval>PT1M</Interval><Count>5</Count></RestartOnFailure>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${xmlEscape(spec.node)}</Command>`,
    `      <Arguments>${xmlEscape(workerArgs(spec).map(windowsArg).join(' '))}</Arguments>`,
    `      <WorkingDirectory>${xmlEscape(spec.workingDir)}</WorkingDirectory>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\n');
}

// --- per platform --------------------------------------------------------------------------------

export interface ServicePlan {
  kind: ServiceKind;
  /** The file `install` writes. */
  file: string;
  contents: string;
  /** `utf16le` for the task XML (with a BOM). */
  encoding: 'utf8' | 'utf16le';
  /** Folders to create besides the file's own (the launchd log folder). */
  dirs: string[];
  /** Programs to run after writing (enable and start), before removing (stop and disable), and to ask for the state. */
  enable: string[][];
  /** Before enabling a replaced file: stop the old service (may fail when it is not running). */
  stopOld: string[][];
  disable: string[][];
  afterRemove: string[][];
  status: string[];
}

export function servicePlan(where: PlatformEnv, spec: ServiceSpec, uid: number | undefined): ServicePlan {
  const p = pathFor(where.platform);
  const kind = serviceKind(where.platform);
  if (kind === 'launchd') {
    const logDir = p.join(where.home, 'Library', 'Logs', 'Syntheo');
    const domain = `gui/${uid ?? 501}`;
    const file = p.join(where.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
    return {
      kind,
      file,
      contents: launchdPlist({ ...spec, logFile: p.join(logDir, 'worker.log') }),
      encoding: 'utf8',
      dirs: [logDir],
      enable: [['launchctl', 'bootstrap', domain, file]],
      // bootstrap refuses a label that is loaded already.
      stopOld: [['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`]],
      disable: [['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`]],
      afterRemove: [],
      status: ['launchctl', 'print', `${domain}/${LAUNCHD_LABEL}`],
    };
  }
  if (kind === 'task-scheduler') {
    const dir = dataDir(where);
    const file = p.join(dir, 'syntheo-worker-task.xml');
    const { USERDOMAIN: domain, USERNAME: name } = where.env;
    return {
      kind,
      file,
      contents: windowsTaskXml({ ...spec, userId: name ? (domain ? `${domain}\\${name}` : name) : undefined, workingDir: dir }),
      encoding: 'utf16le',
      dirs: [],
      enable: [
        ['schtasks', '/Create', '/TN', WINDOWS_TASK, '/XML', file, '/F'],
        ['schtasks', '/Run', '/TN', WINDOWS_TASK],
      ],
      stopOld: [['schtasks', '/End', '/TN', WINDOWS_TASK]],
      disable: [
        ['schtasks', '/End', '/TN', WINDOWS_TASK],
        ['schtasks', '/Delete', '/TN', WINDOWS_TASK, '/F'],
      ],
      afterRemove: [],
      status: ['schtasks', '/Query', '/TN', WINDOWS_TASK, '/V', '/FO', 'LIST'],
    };
  }
  return {
    kind,
    file: p.join(configHome(where), 'systemd', 'user', SYSTEMD_UNIT),
    contents: systemdUnit(spec),
    encoding: 'utf8',
    dirs: [],
    enable: [
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', SYSTEMD_UNIT],
      // Starts it, or restarts a running one on the new unit.
      ['systemctl', '--user', 'restart', SYSTEMD_UNIT],
    ],
    stopOld: [],
    disable: [['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT]],
    afterRemove: [['systemctl', '--user', 'daemon-reload']],
    status: ['systemctl', '--user', 'status', '--no-pager', '--lines', '5', SYSTEMD_UNIT],
  };
}

/** A command as a person would type it (for printing). */
export function shellLine(argv: string[], platform: NodeJS.Platform): string {
  if (platform === 'win32') return argv.map(windowsArg).join(' ');
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
