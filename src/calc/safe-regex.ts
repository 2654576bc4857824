/**
 * Regular expressions written in models (schema `pattern`, JSONata `/…/` literals) run on RE2,
 * whose matching time grows linearly with the input. JavaScript's backtracking engine can spend
 * hours on a pattern such as `(a+)+$` against forty characters, and a match cannot be interrupted,
 * so no time limit would save the process. RE2 has no backreferences and no lookaround.
 */
import RE2 from 're2';

/** A pattern RE2 cannot run: a feature it lacks (backreference, lookaround) or a syntax error. */
export class UnsupportedRegexError extends Error {
  readonly code = 'UNSUPPORTED_REGEX';
}

/** Compiles `pattern` on RE2 (same flags and API as RegExp). */
export function safeRegExp(pattern: string | RegExp, flags?: string): RegExp {
  try {
    return typeof pattern === 'string' ? new RE2(pattern, flags) : new RE2(pattern);
  } catch (err) {
    const shown = typeof pattern === 'string' ? `/${pattern}/` : String(pattern);
    throw new UnsupportedRegexError(
      `regular expression ${shown} cannot run on the linear-time regex engine (RE2: no backreferences or lookaround): ${(err as Error).message}`,
    );
  }
}

/**
 * RE2 programs by the literal's RegExp: JSONata builds its engine anew every time it evaluates a
 * `/…/` (its parser's RegExp, the same object each time), and compiling RE2 cost more than the
 * rest of a text criterion's evaluation (2.6 of 26 seconds converting a 2,500-row workbook).
 */
const programs = new WeakMap<RegExp, RegExp>();

/**
 * One evaluation's view of a shared program: its own `lastIndex`, which JSONata sets before each
 * `exec` and reads after it, across awaits (`$replace` with a function), while another evaluation
 * may run the same literal. `exec` itself is synchronous, so the shared program's index is set
 * and read back with nothing in between.
 */
class SharedProgram {
  lastIndex = 0;
  constructor(private readonly program: RegExp) {}

  exec(text: string): RegExpExecArray | null {
    this.program.lastIndex = this.lastIndex;
    const found = this.program.exec(text);
    this.lastIndex = this.program.lastIndex;
    return found;
  }
}

/**
 * The same, in the shape JSONata's `RegexEngine` option asks for: it calls `new RegexEngine(re)`
 * with the RegExp its parser built, and a constructor that returns an object yields that object.
 * JSONata only sets `lastIndex` and calls `exec` on it (evaluateRegex).
 */
export const SafeRegexEngine = function SafeRegexEngine(pattern: string | RegExp, flags?: string) {
  if (typeof pattern === 'string' || flags !== undefined) return safeRegExp(pattern, flags);
  let program = programs.get(pattern);
  if (!program) programs.set(pattern, (program = safeRegExp(pattern)));
  return new SharedProgram(program);
} as unknown as RegExpConstructor;

/** Why the first `/…/` literal of a JSONata AST that RE2 cannot run is refused; none when all run. */
export function unsupportedRegexIn(ast: unknown): string | undefined {
  for (const re of regexLiterals(ast)) {
    try {
      safeRegExp(re);
    } catch (e) {
      return (e as Error).message;
    }
  }
  return undefined;
}

function regexLiterals(ast: unknown, out: RegExp[] = []): RegExp[] {
  if (Array.isArray(ast)) {
    for (const node of ast) regexLiterals(node, out);
  } else if (ast !== null && typeof ast === 'object') {
    const node = ast as Record<string, unknown>;
    if (node.type === 'regex' && node.value instanceof RegExp) out.push(node.value);
    // own keys without Object.entries' pair arrays (this runs on every checked expression)
    for (const k in node) if (Object.hasOwn(node, k) && k !== 'value') regexLiterals(node[k], out);
  }
  return out;
}
