/**
 * Audit checkpoints: a keyed MAC over where a model's trail ends and the state it holds, stored
 * with the model. The hash chain alone can be recomputed by anyone who can write the database; the
 * checkpoint cannot be, without the audit key (see audit-key.ts).
 *
 * A checkpoint is rewritten by every change the store commits. Before it is, the store checks the
 * old one against the head and state the change starts from; when that fails (the trail, the state
 * or the checkpoint was changed outside the server) the new checkpoint carries the break forward
 * (`broken`), under the MAC, so a later commit cannot launder it.
 */
import { timingSafeEqual } from 'node:crypto';
import type { AuditKey } from './audit-key.js';

/** What a checkpoint vouches for: where the trail ends and the hash of the stored state text. */
export interface CheckpointedHead {
  nextSequence: number;
  lastHash: string;
  stateHash: string;
}

/** Why a checkpoint does not vouch for what is stored. */
export type CheckpointProblem = 'missing' | 'unreadable' | 'other-key' | 'forged' | 'trail' | 'state';

export interface Checkpoint extends CheckpointedHead {
  keyId: string;
  /** The first sequence written under checkpoints (the sequence at upgrade for older models). */
  since: number;
  /** The first record committed on a head the checkpoint did not vouch for, and why. */
  broken?: { sequence: number; reason: CheckpointProblem };
  mac: string;
}

/**
 * A checkpoint this process made, with its text. Met again as the stored text, it is trusted
 * without parsing it or computing its MAC again (it was made with the key), which keeps a commit
 * to one MAC.
 */
export interface MadeCheckpoint {
  text: string;
  checkpoint: Checkpoint;
}

export type CheckpointCheck =
  | { status: 'valid'; checkpoint: Checkpoint }
  | { status: 'missing' | 'unreadable' }
  | { status: 'other-key'; keyId: string }
  /** The MAC does not verify: the checkpoint itself was edited. */
  | { status: 'forged'; checkpoint: Checkpoint }
  /** A genuine checkpoint, of another trail end (`trail`) or another state (`state`). */
  | { status: 'trail' | 'state'; checkpoint: Checkpoint };

const PROBLEMS = new Set<string>(['missing', 'unreadable', 'other-key', 'forged', 'trail', 'state']);

function macInput(modelId: string, c: Omit<Checkpoint, 'mac' | 'keyId'>): string {
  return JSON.stringify([
    'modelworks-audit-checkpoint/1',
    modelId,
    c.nextSequence,
    c.lastHash,
    c.stateHash,
    c.since,
    c.broken?.sequence ?? null,
    c.broken?.reason ?? null,
  ]);
}

/** A new checkpoint of `head` (`text` is what a store keeps). */
export function makeCheckpoint(
  key: AuditKey,
  modelId: string,
  head: CheckpointedHead,
  since: number,
  broken?: Checkpoint['broken'],
): MadeCheckpoint {
  const body: Omit<Checkpoint, 'mac' | 'keyId'> = {
    nextSequence: head.nextSequence,
    lastHash: head.lastHash,
    stateHash: head.stateHash,
    since,
  };
  if (broken) body.broken = broken;
  const checkpoint: Checkpoint = { keyId: key.id, ...body, mac: key.mac(macInput(modelId, body)) };
  return { text: JSON.stringify(checkpoint), checkpoint };
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** The stored text as a checkpoint, or undefined when it is not one. */
function parseCheckpoint(text: string): Checkpoint | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const c = v as Record<string, unknown>;
  const strings = ['keyId', 'lastHash', 'stateHash', 'mac'].every((k) => typeof c[k] === 'string');
  if (!strings || !isCount(c.nextSequence) || !isCount(c.since)) return undefined;
  const out: Checkpoint = {
    keyId: c.keyId as string,
    nextSequence: c.nextSequence,
    lastHash: c.lastHash as string,
    stateHash: c.stateHash as string,
    since: c.since,
    mac: c.mac as string,
  };
  if (c.broken !== undefined) {
    const b = c.broken as Record<string, unknown> | null;
    if (b === null || typeof b !== 'object' || !isCount(b.sequence)) return undefined;
    if (typeof b.reason !== 'string' || !PROBLEMS.has(b.reason)) return undefined;
    out.broken = { sequence: b.sequence, reason: b.reason as CheckpointProblem };
  }
  return out;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Does the stored checkpoint text vouch for `actual` (the head and state as stored now)? `made` is
 * the checkpoint this process last made for the model, if any.
 */
export function checkCheckpoint(
  key: AuditKey,
  modelId: string,
  actual: CheckpointedHead,
  text: string | null | undefined,
  made?: MadeCheckpoint,
): CheckpointCheck {
  if (text === null || text === undefined) return { status: 'missing' };
  const ours = made !== undefined && made.text === text;
  const checkpoint = ours ? made.checkpoint : parseCheckpoint(text);
  if (!checkpoint) return { status: 'unreadable' };
  // the current key, or a key retired by rotation for the checkpoints it made before
  const verifier = key.verifierFor(checkpoint.keyId);
  if (!verifier) return { status: 'other-key', keyId: checkpoint.keyId };
  if (!ours && !sameText(checkpoint.mac, verifier.mac(macInput(modelId, checkpoint))))
    return { status: 'forged', checkpoint };
  if (checkpoint.nextSequence !== actual.nextSequence || checkpoint.lastHash !== actual.lastHash)
    return { status: 'trail', checkpoint };
  if (checkpoint.stateHash !== actual.stateHash) return { status: 'state', checkpoint };
  return { status: 'valid', checkpoint };
}

/**
 * The checkpoint of the head a change moves to (`to`), given the stored checkpoint text and the
 * head and state the change starts from (`from`). A break found in `from` is carried forward.
 */
export function nextCheckpoint(
  key: AuditKey,
  modelId: string,
  from: CheckpointedHead,
  text: string | null | undefined,
  to: CheckpointedHead,
  made?: MadeCheckpoint,
): MadeCheckpoint {
  const check = checkCheckpoint(key, modelId, from, text, made);
  if (check.status === 'valid') {
    return makeCheckpoint(key, modelId, to, check.checkpoint.since, check.checkpoint.broken);
  }
  // a genuine checkpoint of another head keeps its own (earlier) break and its start
  const genuine = check.status === 'trail' || check.status === 'state' ? check.checkpoint : undefined;
  const broken = genuine?.broken ?? { sequence: from.nextSequence, reason: check.status };
  return makeCheckpoint(key, modelId, to, genuine?.since ?? 0, broken);
}
