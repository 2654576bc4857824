/**
 * Inherited effects from another owner wait for approval (issue 41; valem-parity.md §1.4). A
 * branch of `acme/base` made by `globex` inherits acme's effects; one that calls out (any
 * executor but `caller`) must not run on globex's data until globex approves it. An effect is
 * quarantined when it has an `origin` (it was inherited) whose `fromOwner` differs from the
 * model's owner (its id's namespace).
 *
 * An approval is kept in the model's own spec, as `origin.approved: {definitionHash, at}` on the
 * effect, written as one audited change (source `approval`): it survives restarts, every process
 * sharing the store sees it, `verify_audit` covers it, and `get_spec` shows it. The definition
 * hash is the effect's canonical JSON without `origin`, so any later edit of the effect
 * quarantines it again; a branch never inherits an approval (templates.ts drops it). The
 * reference product keeps approvals in one process's memory; a store-wide one is what a
 * deployment of several processes needs.
 *
 * Policy (`MODELWORKS_INHERITED_EFFECTS`): `approve` (default) blocks until approved, `allow`
 * never blocks, `deny` always blocks.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, isObject, type Effect, type ModelSpec } from '../calc/index.js';
import { ownerOf } from '../calc/coordinates.js';

export type InheritedEffectPolicy = 'approve' | 'allow' | 'deny';

export interface PendingEffect {
  effectId: string;
  executor: string;
  definitionHash: string;
  fromRef: string | null;
  fromOwner: string | null;
}

/** The policy a setting names; anything else is refused at start-up. */
export function inheritedEffectPolicy(value: string | undefined): InheritedEffectPolicy {
  const v = (value ?? '').trim();
  if (v === '') return 'approve';
  if (v === 'approve' || v === 'allow' || v === 'deny') return v;
  throw new Error(`MODELWORKS_INHERITED_EFFECTS must be approve, allow or deny, not '${v}'`);
}

/** `sha256:` and the hex digest of the effect's canonical JSON without its origin. */
export function definitionHash(effect: Effect): string {
  const { origin: _origin, ...rest } = effect;
  return `sha256:${createHash('sha256').update(canonicalJson(rest)).digest('hex')}`;
}

/** The definition hash the effect was approved at, if it was. */
function approvedHash(effect: Effect): string | undefined {
  const approved = isObject(effect.origin) ? effect.origin.approved : undefined;
  return isObject(approved) && typeof approved.definitionHash === 'string'
    ? approved.definitionHash
    : undefined;
}

export class EffectApprovals {
  constructor(readonly policy: InheritedEffectPolicy = 'approve') {}

  /** Whether `effect` of model `modelId` comes from another owner (whatever the policy). */
  private foreign(modelId: string, effect: Effect): boolean {
    if (effect.executor === 'caller' || !isObject(effect.origin)) return false;
    const from = typeof effect.origin.fromOwner === 'string' ? effect.origin.fromOwner : undefined;
    return from !== ownerOf(modelId);
  }

  /** Whether the effect may not run now. */
  blocked(modelId: string, effect: Effect): boolean {
    if (this.policy === 'allow' || !this.foreign(modelId, effect)) return false;
    if (this.policy === 'deny') return true;
    return approvedHash(effect) !== definitionHash(effect);
  }

  /** The model's effects waiting for approval. */
  pending(modelId: string, spec: ModelSpec): PendingEffect[] {
    return spec.effects
      .filter((e) => this.blocked(modelId, e))
      .map((e) => ({
        effectId: e.id,
        executor: e.executor,
        definitionHash: definitionHash(e),
        fromRef: typeof e.origin?.fromRef === 'string' ? e.origin.fromRef : null,
        fromOwner: typeof e.origin?.fromOwner === 'string' ? e.origin.fromOwner : null,
      }));
  }
}

/**
 * The spec with effect `effectId` approved as it is defined now (a copy; `spec` is untouched), or
 * undefined when the spec has no such effect.
 */
export function specWithApproval(
  spec: ModelSpec,
  effectId: string,
  at: string,
): { spec: ModelSpec; definitionHash: string } | undefined {
  const effect = spec.effects.find((e) => e.id === effectId);
  if (!effect) return undefined;
  const hash = definitionHash(effect);
  const origin = isObject(effect.origin) ? effect.origin : {};
  const approvedEffect: Effect = { ...effect, origin: { ...origin, approved: { definitionHash: hash, at } } };
  const effects = spec.effects.map((e) => (e.id === effectId ? approvedEffect : e));
  return { spec: { ...spec, effects }, definitionHash: hash };
}
