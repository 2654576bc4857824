/**
 * `modelworks calc console`: an interactive shell on the calc operations, one command per
 * operation, against the embedded store or a server (both through CalcApi). Readline gives line
 * editing and history; Tab completes command names and model ids.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { CalcError } from '../calc/index.js';
import { CalcClient } from '../remote/calc-client.js';
import type { CalcApi } from '../service/calc-api.js';
import { CalcService } from '../service/calc-service.js';
import { openStore } from '../store/open-store.js';
import { parseAssignment } from './calc-commands.js';

type Out = (text: string) => void;

interface ConsoleCommand {
  usage: string;
  help: string;
  /** Whether the first argument is a model id (for completion). */
  takesId: boolean;
  run(calc: CalcApi, args: string[], rest: string): Promise<unknown>;
}

class UsageError extends Error {}

/** A JSON argument: inline JSON, or `@file` / a path to a JSON file. */
function jsonArg(text: string, what: string): unknown {
  const t = text.trim();
  if (t === '') throw new UsageError(`${what}: give inline JSON or @file.json`);
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch (err) {
      throw new UsageError(`${what} is not valid JSON: ${(err as Error).message}`);
    }
  }
  const file = t.startsWith('@') ? t.slice(1) : t;
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  try {
    return JSON.parse(content);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

const need = (args: string[], n: number, usage: string): void => {
  if (args.length < n) throw new UsageError(`usage: ${usage}`);
};

/** The text after the first `n` words of a line. */
function after(rest: string, n: number): string {
  let s = rest.trimStart();
  for (let i = 0; i < n; i++) s = s.replace(/^\S+\s*/, '');
  return s;
}

/** Options written `key=value` among the arguments (e.g. at=…, depth=2, limit=5). */
function options(args: string[]): { named: Record<string, string>; plain: string[] } {
  const named: Record<string, string> = {};
  const plain: string[] = [];
  for (const a of args) {
    const m = /^(at|depth|limit|from|to|path|traces)=(.*)$/.exec(a);
    if (m) named[m[1]!] = m[2]!;
    else plain.push(a);
  }
  return { named, plain };
}

const int = (text: string | undefined, what: string): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n)) throw new UsageError(`${what} must be an integer`);
  return n;
};

export const COMMANDS: Record<string, ConsoleCommand> = {
  list: { usage: 'list', help: 'model ids', takesId: false, run: (c) => c.listModels() },
  create: {
    usage: 'create <spec.json | {json}>',
    help: 'create a model from a ModelSpec',
    takesId: false,
    run: (c, _a, rest) => c.createModel(jsonArg(rest, 'spec')),
  },
  info: { usage: 'info <id>', help: 'model info', takesId: true, run: (c, a) => c.getModelInfo(a[0]!) },
  spec: { usage: 'spec <id>', help: 'the stored spec', takesId: true, run: (c, a) => c.getSpec(a[0]!) },
  lineage: {
    usage: 'lineage <id>',
    help: 'lineage entries',
    takesId: true,
    run: (c, a) => c.getLineage(a[0]!),
  },
  delete: {
    usage: 'delete <id>',
    help: 'delete a model',
    takesId: true,
    run: (c, a) => c.deleteModel(a[0]!),
  },
  state: {
    usage: 'state <id> [path…] [at=ISO] [depth=N]',
    help: 'the merged state, optionally projected',
    takesId: true,
    run: (c, a) => {
      const { named, plain } = options(a.slice(1));
      const depth = int(named.depth, 'depth');
      return c.getState(a[0]!, {
        ...(plain.length > 0 ? { paths: plain } : {}),
        ...(named.at !== undefined ? { at: named.at } : {}),
        ...(depth !== undefined ? { depth } : {}),
      });
    },
  },
  get: {
    usage: 'get <id> <path>',
    help: 'the value at one address',
    takesId: true,
    run: (c, a) => {
      need(a, 2, 'get <id> <path>');
      return c.getField(a[0]!, a[1]!);
    },
  },
  set: {
    usage: 'set <id> <path>=<value>… [traces=true]',
    help: 'mutate: write values as one cycle (values are JSON, else strings)',
    takesId: true,
    run: (c, a) => {
      const { named, plain } = options(a.slice(1));
      if (plain.length === 0) throw new UsageError('usage: set <id> <path>=<value>…');
      const writes = Object.fromEntries(plain.map((p) => parseAssignment(p)));
      // a person at the console, for the audit trail
      return c.mutate(a[0]!, writes, { includeTraces: named.traces === 'true', source: 'person' });
    },
  },
  patch: {
    usage: 'patch <id> <[ops] | patch.json>',
    help: 'apply an RFC 6902 JSON Patch',
    takesId: true,
    run: (c, a, rest) => c.patchModel(a[0]!, jsonArg(after(rest, 1), 'patch')),
  },
  explain: {
    usage: 'explain <id> <path> [limit=N]',
    help: 'how a value was computed',
    takesId: true,
    run: (c, a) => {
      const { named, plain } = options(a.slice(1));
      if (plain.length === 0) throw new UsageError('usage: explain <id> <path> [limit=N]');
      return c.explain(a[0]!, plain[0]!, int(named.limit, 'limit'));
    },
  },
  history: {
    usage: 'history <id>',
    help: 'recent cycle times',
    takesId: true,
    run: (c, a) => c.getHistory(a[0]!),
  },
  schema: {
    usage: 'schema <id> <path>',
    help: 'effective schema at an address',
    takesId: true,
    run: (c, a) => {
      need(a, 2, 'schema <id> <path>');
      return c.getEffectiveSchema(a[0]!, a[1]!);
    },
  },
  graph: { usage: 'graph <id>', help: 'dependency graph', takesId: true, run: (c, a) => c.getGraph(a[0]!) },
  verification: {
    usage: 'verification <id>',
    help: 'which embedded tests are checkable, and do they pass',
    takesId: true,
    run: (c, a) => c.getVerification(a[0]!),
  },
  audit: {
    usage: 'audit <id> [path=prefix] [from=ISO] [to=ISO] [limit=N]',
    help: 'audit records, newest first',
    takesId: true,
    run: (c, a) => {
      const { named } = options(a.slice(1));
      const limit = int(named.limit, 'limit');
      return c.getAudit(a[0]!, {
        ...(named.path !== undefined ? { pathPrefix: named.path } : {}),
        ...(named.from !== undefined ? { from: named.from } : {}),
        ...(named.to !== undefined ? { to: named.to } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
    },
  },
  'verify-audit': {
    usage: 'verify-audit <id>',
    help: "check the audit trail's hash chain",
    takesId: true,
    run: (c, a) => c.verifyAudit(a[0]!),
  },
  snapshot: {
    usage: 'snapshot <id> [file]',
    help: 'take a snapshot (saved to file when given)',
    takesId: true,
    run: async (c, a) => {
      const snap = await c.snapshot(a[0]!);
      if (a[1] === undefined) return snap;
      writeFileSync(a[1], `${JSON.stringify(snap, null, 2)}\n`);
      return { saved: a[1] };
    },
  },
  restore: {
    usage: 'restore <id> <snapshot.json | {json}>',
    help: 'restore a snapshot',
    takesId: true,
    run: (c, a, rest) => c.restore(a[0]!, jsonArg(after(rest, 1), 'snapshot')),
  },
  evolve: {
    usage: 'evolve <id> <evolution.json | {json}>',
    help: 'apply a SpecEvolution',
    takesId: true,
    run: (c, a, rest) => c.evolveSpec(a[0]!, jsonArg(after(rest, 1), 'evolution')),
  },
  view: {
    usage: 'view <id> [viewId]',
    help: 'a view, evaluated',
    takesId: true,
    run: (c, a) => c.getView(a[0]!, a[1]),
  },
  library: {
    usage: 'library <id>',
    help: "the model's library",
    takesId: true,
    run: (c, a) => c.getLibrary(a[0]!),
  },
  upload: {
    usage: 'upload <file> [mediaType]',
    help: 'store a file as a blob',
    takesId: false,
    run: (c, a) => {
      need(a, 1, 'upload <file> [mediaType]');
      return c.uploadBlob(readFileSync(a[0]!), a[1]);
    },
  },
  download: {
    usage: 'download <blobId> <file> [modelId]',
    help: 'save a blob to a file',
    takesId: false,
    run: async (c, a) => {
      need(a, 2, 'download <blobId> <file> [modelId]');
      const blob = await c.downloadBlob(a[0]!, a[2]);
      writeFileSync(a[1]!, Buffer.from(blob.data, 'base64'));
      return { saved: a[1], bytes: blob.bytes, mediaType: blob.mediaType };
    },
  },
  validate: {
    usage: 'validate <spec.json | {json}>',
    help: 'validate a spec (embedded tests included)',
    takesId: false,
    run: (c, _a, rest) => c.validateSpec(jsonArg(rest, 'spec')),
  },
  test: {
    usage: 'test <spec.json | {json}>',
    help: "run a spec's embedded tests",
    takesId: false,
    run: (c, _a, rest) => c.testSpec(jsonArg(rest, 'spec')),
  },
  eval: {
    usage: 'eval <expression>',
    help: 'evaluate a JSONata expression against {}',
    takesId: false,
    run: (c, _a, rest) => c.evalExpression(rest),
  },
};

const id = (args: string[]): void => {
  if (args.length === 0) throw new UsageError('give a model id (Tab completes)');
};

function helpText(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(width)}  ${c.help}`);
  return [
    'commands:',
    ...lines,
    `  ${'help'.padEnd(width)}  this list`,
    `  ${'quit'.padEnd(width)}  leave`,
  ].join('\n');
}

/** Runs one console line; returns false when the session should end. */
export async function runLine(calc: CalcApi, line: string, out: Out): Promise<boolean> {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return true;
  const [name = '', ...args] = trimmed.split(/\s+/);
  if (name === 'quit' || name === 'exit') return false;
  if (name === 'help' || name === '?') {
    out(helpText());
    return true;
  }
  const command = COMMANDS[name];
  if (!command) {
    out(`unknown command '${name}' (help lists them)`);
    return true;
  }
  try {
    if (command.takesId) id(args);
    const result = await command.run(calc, args, after(trimmed, 1));
    out(JSON.stringify(result ?? null, null, 2));
  } catch (err) {
    out(describeError(err));
  }
  return true;
}

function describeError(err: unknown): string {
  if (err instanceof CalcError) {
    const lines = [`error (${err.code}): ${err.message}`];
    const details = err.details.violations ?? err.details.errors ?? err.details.incompatibilities;
    if (Array.isArray(details)) for (const d of details) lines.push(`  - ${JSON.stringify(d)}`);
    return lines.join('\n');
  }
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}

/** Tab completion: command names first, then model ids for commands that take one. */
export function completer(modelIds: () => Promise<string[]>) {
  return (line: string, callback: (err: null, result: [string[], string]) => void): void => {
    const words = line.split(/\s+/);
    if (words.length <= 1) {
      const names = [...Object.keys(COMMANDS), 'help', 'quit'];
      const hits = names.filter((n) => n.startsWith(line));
      callback(null, [hits.length > 0 ? hits.map((h) => `${h} `) : names, line]);
      return;
    }
    const command = COMMANDS[words[0]!];
    const partial = words[words.length - 1]!;
    if (!command?.takesId || words.length !== 2) {
      callback(null, [[], partial]);
      return;
    }
    modelIds().then(
      (ids) => callback(null, [ids.filter((i) => i.startsWith(partial)).map((i) => `${i} `), partial]),
      () => callback(null, [[], partial]),
    );
  };
}

export interface ConsoleOptions {
  url?: string;
  apiKey?: string;
  store?: string;
}

async function openCalc(
  opts: ConsoleOptions,
): Promise<{ calc: CalcApi & { close(): Promise<void> }; where: string }> {
  const url = opts.url ?? process.env.MODELWORKS_SERVER_URL;
  if (url) {
    const calc = new CalcClient({ url, apiKey: opts.apiKey ?? process.env.MODELWORKS_API_KEY });
    return { calc, where: calc.baseUrl };
  }
  const store = await openStore(opts.store ?? process.env.MODELWORKS_STORE);
  return { calc: new CalcService(store), where: `${store.kind} store` };
}

/** `modelworks calc console`: the session on stdin/stdout until `quit` or end of input. */
export async function runConsole(opts: ConsoleOptions): Promise<void> {
  let opened;
  try {
    opened = await openCalc(opts);
  } catch (err) {
    process.stderr.write(`modelworks: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const { calc, where } = opened;
  const rl: Interface = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: 'modelworks> ',
    historySize: 500,
    completer: completer(() => calc.listModels()),
  });
  const out: Out = (text) => process.stdout.write(`${text}\n`);
  out(`modelworks console on ${where}; help lists the commands, Tab completes, quit leaves`);
  rl.prompt();
  // one line at a time, in order, even when lines arrive faster than commands finish
  let queue = Promise.resolve(true);
  let closed = false;
  rl.on('line', (line) => {
    queue = queue.then(async (go) => {
      if (!go) return false;
      const more = await runLine(calc, line, out);
      if (!more) rl.close();
      else if (!closed) rl.prompt();
      return more;
    });
  });
  await new Promise<void>((resolve) =>
    rl.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  await queue;
  await calc.close();
}
