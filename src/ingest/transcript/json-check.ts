import { TranscriptFileError, type TranscriptFormat } from './model.js';

// One linear pass over JSON text before JSON.parse: refuses nesting deeper than `maxDepth` and points
// at the line of a syntax error (V8's own messages give no line and quote the file's content).

export function checkJson(text: string, maxDepth: number, format: TranscriptFormat): void {
  let i = 0;
  const n = text.length;
  const fail = (problem: string): never => {
    let line = 1;
    for (let j = 0; j < i && j < n; j++) if (text.charCodeAt(j) === 10) line++;
    throw new TranscriptFileError(format, line, problem);
  };
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const string = (): void => {
    i++; // opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return;
      }
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('invalid \\u escape in a JSON string');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail('invalid escape in a JSON string');
      } else if (c < 32) fail('unescaped control character or line break in a JSON string');
      else i++;
    }
    fail('unterminated JSON string');
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const scalar = (): void => {
    const c = text[i];
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    if (c !== undefined && NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    fail(c === undefined ? 'the JSON ends too early' : `unexpected character ${JSON.stringify(c)} where a JSON value should be`);
  };

  // Iterative: a stack of open containers, so depth costs no call stack.
  const stack: Array<'{' | '['> = [];
  ws();
  for (;;) {
    // Expecting a value.
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (stack.length >= maxDepth) fail(`the JSON is nested deeper than ${maxDepth} levels`);
      stack.push(c);
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) {
        stack.pop();
        i++;
      } else {
        if (c === '{') key();
        continue;
      }
    } else scalar();
    // After a value: close containers or move to the next member.
    for (;;) {
      ws();
      const top = stack[stack.length - 1];
      if (top === undefined) {
        if (i < n) fail('unexpected text after the JSON value');
        return;
      }
      const d = text[i];
      if (d === ',') {
        i++;
        if (top === '{') {
          ws();
          key();
        }
        break;
      }
      if ((top === '{' && d === '}') || (top === '[' && d === ']')) {
        stack.pop();
        i++;
        continue;
      }
      fail(d === undefined ? 'the JSON ends too early' : `expected "," or "${top === '{' ? '}' : ']'}", found ${JSON.stringify(d)}`);
    }
  }

  function key(): void {
    if (text[i] !== '"') fail('expected a quoted property name');
    string();
    ws();
    if (text[i] !== ':') fail('expected ":" after a property name');
    i++;
  }
}
