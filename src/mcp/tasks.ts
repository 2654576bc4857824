/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for 2026-07-28 clients that
 * declare it: a long operation (`simulate`, `generate`, `convert_spreadsheet`, `fit_model`) answers
 * its tools/call at once with a task handle (`resultType: "task"`), runs on in this process, and the
 * client polls `tasks/get` (its progress is the task's `statusMessage`; the final CallToolResult is
 * its `result`) or stops it with `tasks/cancel`. 2025-era clients keep progress notifications and
 * `notifications/cancelled` on the call itself. Tasks live in the process that created them (the
 * SEP's HTTP binding sends `Mcp-Name: <taskId>` so a balancer can route on it) for an hour after
 * they end.
 */
import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
// a namespace import, as the SDK's own: esbuild then keeps only the zod functions used, where the
// `z` object (`import { z }`) made all of zod live, its 50 locales too (0.5 MB parsed before
// `initialize` is answered, in the chunk shared with the SDK; issue 45)
import * as z from 'zod/v4';
import type { ToolResult } from './results.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The tools that run as tasks when the client takes them: the ones that may run for minutes. */
export const TASK_TOOLS: ReadonlySet<string> = new Set([
  'simulate',
  'generate',
  'convert_spreadsheet',
  'fit_model',
]);

/** How long an ended task can still be read. */
const TASK_TTL_MS = 60 * 60_000;
/** The polling interval suggested to clients. */
const POLL_INTERVAL_MS = 500;
/** Tasks kept at most per process; the oldest ended ones go first. */
const MAX_TASKS = 1_000;

type Status = 'working' | 'completed' | 'failed' | 'cancelled';

interface TaskEntry {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: ToolResult;
  error?: { code: number; message: string };
  controller: AbortController;
  /** Epoch ms after which an ended task is forgotten. */
  expiresAt: number;
}

/** Whether the request's client takes task handles for tools/call. */
export function clientTakesTasks(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** What a task's work is given: its own cancellation and a place to say how far it is. */
export interface TaskWork {
  signal: AbortSignal;
  progress: (progress: number, total: number | undefined, message: string) => void;
}

export class TaskRegistry {
  private readonly tasks = new Map<string, TaskEntry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Starts `work` as a task; answers the task handle the tools/call returns. */
  start(work: (task: TaskWork) => Promise<ToolResult>): Record<string, unknown> {
    this.prune();
    const stamp = new Date(this.now()).toISOString();
    const entry: TaskEntry = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: stamp,
      lastUpdatedAt: stamp,
      controller: new AbortController(),
      expiresAt: Number.POSITIVE_INFINITY,
    };
    this.tasks.set(entry.taskId, entry);
    const progress = (done: number, total: number | undefined, message: string): void => {
      if (entry.status !== 'working') return;
      entry.statusMessage = total ? `${message} (${Math.round((100 * done) / total)}%)` : message;
      entry.lastUpdatedAt = new Date(this.now()).toISOString();
    };
    void work({ signal: entry.controller.signal, progress }).then(
      (result) => this.end(entry, 'completed', { result }),
      (err: unknown) =>
        this.end(entry, 'failed', {
          error: { code: -32603, message: err instanceof Error ? err.message : 'the task failed' },
        }),
    );
    return { resultType: 'task', ...this.view(entry) };
  }

  /** The task as tasks/get answers it; undefined when unknown or forgotten. */
  get(taskId: string): Record<string, unknown> | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    return {
      ...this.view(entry),
      ...(entry.status === 'completed' && entry.result ? { result: entry.result } : {}),
      ...(entry.status === 'failed' && entry.error ? { error: entry.error } : {}),
    };
  }

  /** Cancels a working task (an ended one stays as it ended); false when unknown. */
  cancel(taskId: string): boolean {
    const entry = this.tasks.get(taskId);
    if (!entry) return false;
    if (entry.status === 'working') {
      this.end(entry, 'cancelled', {});
      entry.controller.abort();
    }
    return true;
  }

  private end(entry: TaskEntry, status: Status, outcome: Pick<TaskEntry, 'result' | 'error'>): void {
    if (entry.status !== 'working') return; // cancelled first: what the work answers later is dropped
    entry.status = status;
    if (outcome.result) entry.result = outcome.result;
    if (outcome.error) entry.error = outcome.error;
    entry.lastUpdatedAt = new Date(this.now()).toISOString();
    entry.expiresAt = this.now() + TASK_TTL_MS;
  }

  private view(entry: TaskEntry): Record<string, unknown> {
    return {
      taskId: entry.taskId,
      status: entry.status,
      ...(entry.statusMessage !== undefined ? { statusMessage: entry.statusMessage } : {}),
      createdAt: entry.createdAt,
      lastUpdatedAt: entry.lastUpdatedAt,
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  }

  private prune(): void {
    const now = this.now();
    for (const [id, t] of this.tasks) if (t.expiresAt <= now) this.tasks.delete(id);
    if (this.tasks.size < MAX_TASKS) return;
    const ended = [...this.tasks.values()].filter((t) => t.status !== 'working');
    ended.sort((a, b) => a.expiresAt - b.expiresAt);
    for (const t of ended.slice(0, this.tasks.size - MAX_TASKS + 1)) this.tasks.delete(t.taskId);
  }
}

/** This process's tasks: every server instance (one per HTTP request at 2026-07-28) shares them. */
export const processTasks = new TaskRegistry();

/** The params of tasks/get, tasks/update and tasks/cancel (the extension's other fields are ignored). */
const TASK_PARAMS = { params: z.looseObject({ taskId: z.string() }) };

function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(
    -32602,
    `Unknown task: '${taskId}' (ended over an hour ago, or another process's)`,
    {
      taskId,
    },
  );
}

/** A tasks/* request from a client that did not declare the extension is -32021, as SEP-2663 says. */
function requireTasksCapability(ctx: ServerContext): void {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (!clientTakesTasks(envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined))
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `tasks/* needs the client capability extensions["${TASKS_EXTENSION}"]`,
    );
}

/** tasks/get, tasks/update and tasks/cancel on a 2026-07-28 server instance. */
export function registerTaskHandlers(server: Server, registry: TaskRegistry = processTasks): void {
  server.setRequestHandler('tasks/get', TASK_PARAMS, ({ taskId }, ctx) => {
    requireTasksCapability(ctx);
    const task = registry.get(taskId);
    if (!task) throw unknownTask(taskId);
    return task;
  });
  server.setRequestHandler('tasks/cancel', TASK_PARAMS, ({ taskId }, ctx) => {
    requireTasksCapability(ctx);
    if (!registry.cancel(taskId)) throw unknownTask(taskId);
    return {};
  });
  // our tasks never wait for input (input_required): an update has nothing to deliver
  server.setRequestHandler('tasks/update', TASK_PARAMS, ({ taskId }, ctx) => {
    requireTasksCapability(ctx);
    if (!registry.get(taskId)) throw unknownTask(taskId);
    return {};
  });
}
