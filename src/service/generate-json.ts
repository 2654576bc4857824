/**
 * Getting one JSON object out of a model's answer: the fenced block or the outermost braces, then
 * two slips small models make (raw newlines inside strings, trailing commas) mended before parsing.
 * Anything else is reported back to the model as "not valid JSON" rather than guessed at.
 */

/** The JSON text in an answer: a ```json fence's body, else the first balanced {...}. */
export function extractJson(answer: string): string | undefined {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n\s*```/.exec(answer);
  const text = fenced ? fenced[1]! : answer;
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start); // unbalanced: let the parser say where
}

/** Raw line breaks inside strings escaped, trailing commas before } or ] dropped (strings untouched). */
export function mendJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
      } else if (c === '"') {
        inString = false;
        out += c;
      } else if (c === '\n') out += '\\n';
      else if (c === '\r') out += '\\r';
      else if (c === '\t') out += '\\t';
      else out += c;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ',') {
      const rest = /^\s*([}\]])/.exec(text.slice(i + 1));
      if (rest) continue;
    }
    out += c;
  }
  return out;
}

export type ParsedAnswer = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/** The answer's JSON object, or why there is none (in our words). */
export function parseAnswer(answer: string): ParsedAnswer {
  const text = extractJson(answer);
  if (text === undefined) return { ok: false, message: 'the answer holds no JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(mendJson(text));
  } catch (err) {
    // the engine's words stay inside; the position it names helps the model find its slip
    const at = /position (\d+)/.exec((err as Error).message);
    const where = at ? Number(at[1]) : undefined;
    const near =
      where === undefined
        ? ''
        : ` near character ${where}: ${JSON.stringify(text.slice(Math.max(0, where - 30), where + 30))}`;
    return { ok: false, message: `the answer is not valid JSON${near}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'the answer is JSON but not an object' };
  return { ok: true, value: value as Record<string, unknown> };
}
