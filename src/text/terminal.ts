// The one rule for untrusted text on a terminal, shared by the CLI's output and the pretty logs.

/**
 * Control characters and Unicode bidi overrides shown visibly instead of acting: C0 as Control Pictures
 * (`\r` -> `␍`, ESC -> `␛`, so `ESC[2K` prints as `␛[2K`), DEL as `␡`, C1 and bidi controls as `<U+009B>`.
 * Tabs and newlines are layout and stay; `\r\n` is a newline. Idempotent.
 */
export function neutralise(text: string): string {
  // Fast path: most text has nothing to neutralise.
  if (!UNSAFE_TEST.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

// C0 except \t and \n, DEL, C1, and the bidi embedding/override/isolate controls (Trojan Source).
const UNSAFE_SOURCE = '[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]';
const UNSAFE_TEST = new RegExp(UNSAFE_SOURCE);
const UNSAFE = new RegExp(UNSAFE_SOURCE, 'g');
