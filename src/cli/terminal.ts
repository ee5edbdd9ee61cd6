// What reaches a person's terminal: untrusted text made inert, and colour by the usual conventions.
// Every human output (results, progress, errors, pretty logs) goes through toTerminal(); JSON never does.
import { neutralise } from '../text/terminal.js';

export { neutralise };

// Colours are marked with a per-process random tag from the Private Use Area, turned into SGR escapes only
// after neutralise(): text from the database cannot know the tag, so it cannot forge a colour.
// Made on first use (Web Crypto loads only then): no paint, no marks to find.
let tag: { text: string; marks: RegExp } | undefined;

function mark(sgr: number): string {
  if (!tag) {
    const text = Array.from(crypto.getRandomValues(new Uint16Array(4)), (n) => String.fromCharCode(0xe000 + (n % 0x1000))).join('');
    tag = { text, marks: new RegExp(`${text}([\\uF000-\\uF0FF])`, 'g') };
  }
  return `${tag.text}${String.fromCharCode(0xf000 + sgr)}`;
}

/** Text with its colour marks removed (for measuring). */
export function unmarked(text: string): string {
  return tag && text.includes(tag.text) ? text.replace(tag.marks, '') : text;
}

/** The one door to a terminal: neutralised, with colour marks turned into escapes when colour is on. */
export function toTerminal(text: string, colour: boolean): string {
  const safe = neutralise(text);
  if (!tag || !safe.includes(tag.text)) return safe;
  return safe.replace(tag.marks, (_, c: string) => (colour ? `\x1b[${c.charCodeAt(0) - 0xf000}m` : ''));
}

/** Colours for human output; plain text when off. Marks only: toTerminal() renders them. */
export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

export function paint(on: boolean): Paint {
  const sgr = (open: number, close: number) => (s: string) => (on ? `${mark(open)}${s}${mark(close)}` : s);
  return { red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39), bold: sgr(1, 22), dim: sgr(2, 22) };
}

export interface ColourFlags {
  /** --color (true), --no-color (false), neither (undefined). */
  flag?: boolean;
}

/**
 * Whether to colour a stream: --color/--no-color, then FORCE_COLOR (any value but '', 0 or false forces it,
 * e.g. through `less -R`; it wins over NO_COLOR as in Node), then NO_COLOR (https://no-color.org), then
 * TERM=dumb, then whether the stream is a terminal.
 */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env, flag?: boolean): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return Boolean(stream.isTTY);
}

/** Back to the start of the line, erased: ends a live line (see canRedraw). */
export const CLEAR_LINE = '\r\x1b[2K';

/** `text` drawn over the line the cursor is on, terminal-safe: a live progress line (see canRedraw). */
export const redrawn = (text: string, colour: boolean): string => `${CLEAR_LINE}${toTerminal(text, colour)}`;

/** Whether a stream can take a live line redrawn with `\r` and erase-line (a terminal that is not dumb). */
export function canRedraw(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}
