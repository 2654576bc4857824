/**
 * Inherited effects from another owner wait for approval (issue 41; valem-parity.md §1.4). A
 * branch of `acme/base` made by `globex` inherits acme's effects; one that calls out (any
 * executor but `caller`) must not run on globex's data until globex approves it. An effect is
 * quarantined when it has an `origin` (it was inherited) whose `fromOwner` differs from the
 * model's owner (its id's namespace). Approving stores the effect's definition hash (its
 * canonical JSON without `origin`), so any later edit of the effect quarantines it again.
 *
 * Policy (`MODELWORKS_INHERITED_EFFECTS`): `approve` (default) blocks until approved, `allow`
 * never blocks, `deny` always blocks. Approvals live in this process's memory, as the reference
 * product keeps them: a restart forgets them and the effects wait again (the safe direction).
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

export class EffectApprovals {
  /** model id → effect id → the definition hash approved. */
  private readonly approved = new Map<string, Map<string, string>>();

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
    return this.approved.get(modelId)?.get(effect.id) !== definitionHash(effect);
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

  /** Approves the effect as it is defined now; false when the model has no such effect. */
  approve(modelId: string, spec: ModelSpec, effectId: string): boolean {
    const effect = spec.effects.find((e) => e.id === effectId);
    if (!effect) return false;
    let mine = this.approved.get(modelId);
    if (!mine) this.approved.set(modelId, (mine = new Map()));
    mine.set(effectId, definitionHash(effect));
    return true;
  }

  /** Forgets a deleted model's approvals (a new model under its id starts with none). */
  forget(modelId: string): void {
    this.approved.delete(modelId);
  }
}
