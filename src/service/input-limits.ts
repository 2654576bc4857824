/**
 * Bounds on the shape of a request's input, checked before any work starts (issue 47): how many
 * keys (object members and array elements) a whole body holds, how many addresses or operations
 * one write carries, and how deep it nests. A 3 MB mutation of 200,000 addresses once held the
 * event loop for 12.7 s; the walk that counts costs a few ms and stops at the first limit passed.
 * Every surface (REST, MCP over HTTP and stdio) reads the same settings.
 */

export interface InputLimits {
  /** Keys in one request's input, counted over every object member and array element. */
  maxBodyKeys: number;
  /** Addresses of one mutation (its keys) or operations of one JSON Patch. */
  maxWriteKeys: number;
  /** Arrays and objects nested in each other. */
  maxDepth: number;
}

export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = {
  maxBodyKeys: 250_000,
  maxWriteKeys: 10_000,
  maxDepth: 128,
};

/** Each setting: the limit it sets and the whole numbers it accepts. */
export const INPUT_LIMIT_SETTINGS = {
  MODELWORKS_MAX_BODY_KEYS: { key: 'maxBodyKeys', min: 1, max: 100_000_000 },
  MODELWORKS_MAX_WRITE_KEYS: { key: 'maxWriteKeys', min: 1, max: 100_000_000 },
  // the calc engine's own walk refuses anything past 512 levels whatever this says
  MODELWORKS_MAX_BODY_DEPTH: { key: 'maxDepth', min: 2, max: 512 },
} as const satisfies Record<string, { key: keyof InputLimits; min: number; max: number }>;

type Setting = keyof typeof INPUT_LIMIT_SETTINGS;

/** The limits from the environment, defaults for what is unset. @throws Error naming a bad setting */
export function inputLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): InputLimits {
  const limits: InputLimits = { ...DEFAULT_INPUT_LIMITS };
  for (const setting of Object.keys(INPUT_LIMIT_SETTINGS) as Setting[]) {
    const text = env[setting]?.trim();
    if (text === undefined || text === '') continue;
    const { key, min, max } = INPUT_LIMIT_SETTINGS[setting];
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max)
      throw new Error(`${setting} must be a whole number from ${min} to ${max} (got '${text}')`);
    limits[key] = value;
  }
  return limits;
}

/** Which limit a request passed, by how much, and the setting that raises it. */
export interface InputLimitViolation {
  limit: 'bodyKeys' | 'writeKeys' | 'depth';
  max: number;
  /** What was counted when the walk stopped: at least max + 1 (the walk stops there). */
  found: number;
  setting: Setting;
  message: string;
}

const SETTING_OF: Record<InputLimitViolation['limit'], Setting> = {
  bodyKeys: 'MODELWORKS_MAX_BODY_KEYS',
  writeKeys: 'MODELWORKS_MAX_WRITE_KEYS',
  depth: 'MODELWORKS_MAX_BODY_DEPTH',
};

function violation(limit: InputLimitViolation['limit'], max: number, found: number, what: string) {
  const setting = SETTING_OF[limit];
  const message =
    limit === 'depth'
      ? `${what} nests deeper than ${max} levels (${setting}); send a flatter value`
      : limit === 'bodyKeys'
        ? `${what} holds more than ${max} keys and array elements (${setting}); send it in smaller parts`
        : `${what} writes more than ${max} addresses or operations at once (${setting}); split it into several writes`;
  return { limit, max, found, setting, message };
}

/**
 * The first limit `value` passes (keys of the whole value, nesting depth), or undefined. An
 * explicit stack, not recursion: a hostile value cannot overflow ours. Own enumerable keys only.
 */
export function findInputLimitViolation(
  value: unknown,
  limits: InputLimits,
  what = 'the request',
): InputLimitViolation | undefined {
  let keys = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limits.maxDepth) return violation('depth', limits.maxDepth, depth, what);
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    keys += children.length;
    if (keys > limits.maxBodyKeys) return violation('bodyKeys', limits.maxBodyKeys, keys, what);
    for (const child of children)
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return undefined;
}

/** Addresses of a mutation (an object's keys) or operations of a patch (an array's length). */
export function writeKeyCount(write: unknown): number {
  if (Array.isArray(write)) return write.length;
  if (write !== null && typeof write === 'object') return Object.keys(write).length;
  return 0;
}

/** The write-size limit passed by one mutation or patch, or undefined. */
export function findWriteLimitViolation(
  write: unknown,
  limits: InputLimits,
  what = 'the write',
): InputLimitViolation | undefined {
  const count = writeKeyCount(write);
  return count > limits.maxWriteKeys ? violation('writeKeys', limits.maxWriteKeys, count, what) : undefined;
}

/** The catalogue code of every input-limit refusal. */
export const INPUT_LIMIT_CODE = 'INPUT_LIMIT';

/** The details a refusal carries besides its message (the same on every surface). */
export function violationDetails(v: InputLimitViolation): Record<string, unknown> {
  return { limit: v.limit, max: v.max, setting: v.setting };
}

/** A refusal raised where only an exception can carry it (a body parser): the violation inside. */
export class InputLimitError extends Error {
  constructor(readonly violation: InputLimitViolation) {
    super(violation.message);
    this.name = 'InputLimitError';
  }
}

/**
 * The limits checked on a JSON text before it is parsed: building a 200,000-key object is itself
 * the expensive part (JSON.parse of such a mutation took most of a second), so a text over a limit
 * is refused without it. One pass over the characters, strings stepped over; `writeKeys` counts
 * the members of the outermost value (a mutation's addresses, a patch's operations) when asked.
 * The text need not be valid JSON: an invalid one passes here and fails to parse.
 */
export function findJsonTextLimitViolation(
  text: string,
  limits: InputLimits,
  options: { what: string; writeKeys: boolean },
): InputLimitViolation | undefined {
  let depth = 0;
  let elements = 0;
  let outer = 0;
  let emptySoFar = false; // the container just opened has no member yet
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (emptySoFar && c !== 0x5d && c !== 0x7d) {
      emptySoFar = false;
      elements++;
      if (depth === 1) outer++;
    }
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.maxDepth) return violation('depth', limits.maxDepth, depth, options.what);
      emptySoFar = true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      emptySoFar = false;
    } else if (c === 0x2c) {
      elements++;
      if (depth === 1) outer++;
    } else continue;
    if (elements > limits.maxBodyKeys)
      return violation('bodyKeys', limits.maxBodyKeys, elements, options.what);
    if (options.writeKeys && outer > limits.maxWriteKeys)
      return violation('writeKeys', limits.maxWriteKeys, outer, 'the mutation or patch');
  }
  return undefined;
}
