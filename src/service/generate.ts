/**
 * Spec generation and evolution from a plain-language description (issue 44, docs/generate.md).
 * Each attempt asks the configured provider, then extracts and mends the JSON, validates, runs the
 * initial-state gate, the embedded tests and the view lint, and feeds what failed back into the
 * next prompt. Budgets (Valem's): `maxAttempts` attempts always, then up to `maxAttemptsHard` only
 * while the error count keeps dropping; a token and a time budget over the whole run.
 */
import {
  applyEvolution,
  CalcError,
  MODEL_SPEC_SCHEMA,
  publicMessage,
  SPEC_EVOLUTION_SCHEMA,
  type ModelSpec,
} from '../calc/index.js';
import { LlmError, notConfigured, type LlmClient } from '../llm/index.js';
import type { CompletionRequest } from '../llm/index.js';
import type { InteractionPurpose, InteractionRecord } from '../llm/interactions.js';
import type { CalcModelApi } from './calc-api.js';
import {
  checkCandidate,
  publicVerification,
  type CheckOutcome,
  type GenerationVerification,
} from './generate-check.js';
import { parseAnswer } from './generate-json.js';
import {
  evolutionPrompt,
  generationPrompt,
  MAX_DESCRIPTION_CHARS,
  MAX_PROMPT_CHARS,
  repairPrompt,
  smallerPrompt,
  type Finding,
  type Prompt,
} from './generate-prompt.js';
import type { GuidanceTopic } from './guidance/topics.js';

export interface GenerateRequest {
  /** The domain in plain language (≤ 5,000 characters). */
  description?: string;
  /** A whole user prompt instead (≤ 100,000 characters); wins over `description`. */
  prompt?: string;
  modelId?: string;
  includeView?: boolean;
  topics?: string[];
}

export type ProgressFrame =
  | { phase: 'retrying'; attempt: number; maxAttempts: number }
  | { phase: 'llm_requesting'; attempt: number; provider: string; model: string }
  | { phase: 'validating'; attempt: number }
  | { phase: 'validation_failed'; attempt: number; errors: string[]; errorCount: number }
  | { phase: 'test_running'; attempt: number }
  | { phase: 'test_failed'; attempt: number; failCount: number };

export interface RunOptions {
  signal?: AbortSignal;
  progress?: (frame: ProgressFrame) => void;
}

export interface GenerateResult {
  valid: true;
  spec: Record<string, unknown>;
  verification: GenerationVerification;
  attempts: number;
  topics: string[];
  /** View-lint findings left when the attempts ran out with only those. */
  warnings: Finding[];
}

export interface EvolveAiResult {
  id: string;
  version: string;
  revision?: number;
  evolution: Record<string, unknown>;
  spec: ModelSpec;
  verification: GenerationVerification;
  attempts: number;
}

/** The most of a rejected answer a failure carries back. */
const MAX_RAW_RESPONSE_CHARS = 50_000;

const FIRST_TEMPERATURE = 0;
const repairTemperature = (repair: number): number => Math.min(0.8, 0.2 + 0.15 * (repair - 1));

const errorLines = (findings: readonly Finding[]): string[] =>
  findings.slice(0, 5).map((f) => `${f.location}: ${f.message}`);

function checkText(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new LlmError('INVALID_ARGUMENT', `${name} must be text`);
  if (value.length > max)
    throw new LlmError(
      'INVALID_ARGUMENT',
      `${name} is ${value.length} characters long; at most ${max} are taken`,
    );
  return value.trim() === '' ? undefined : value;
}

function checkRequest(request: GenerateRequest): {
  description: string;
  prompt?: string;
  modelId?: string;
  includeView: boolean;
  topics?: string[];
} {
  const prompt = checkText(request.prompt, 'prompt', MAX_PROMPT_CHARS);
  const description = checkText(request.description, 'description', MAX_DESCRIPTION_CHARS);
  if (!prompt && !description)
    throw new LlmError('INVALID_ARGUMENT', 'give a description of the model (or a whole prompt)');
  const modelId = checkText(request.modelId, 'modelId', 200);
  if (
    modelId !== undefined &&
    !/^(?:[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*\/)?[A-Za-z][A-Za-z0-9_-]*$/.test(modelId)
  )
    throw new LlmError(
      'INVALID_ARGUMENT',
      'modelId must be [namespace/]name: segments start with a letter, then letters, digits, _ or -',
    );
  if (request.includeView !== undefined && typeof request.includeView !== 'boolean')
    throw new LlmError('INVALID_ARGUMENT', 'includeView must be true or false');
  const topics = request.topics;
  if (topics !== undefined && (!Array.isArray(topics) || topics.some((t) => typeof t !== 'string')))
    throw new LlmError('INVALID_ARGUMENT', 'topics must be a list of topic ids');
  return {
    description: description ?? '',
    ...(prompt ? { prompt } : {}),
    ...(modelId ? { modelId } : {}),
    includeView: request.includeView ?? false,
    ...(topics ? { topics } : {}),
  };
}

/** What one loop needs: the first prompt, what the answer is, and how to check and accept it. */
interface LoopSpec<T> {
  purpose: InteractionPurpose;
  first: Prompt;
  what: 'ModelSpec' | 'SpecEvolution';
  schema: Record<string, unknown>;
  /** Checks an answer's object; `accept` turns a clean one into the result (may itself fail). */
  check(value: Record<string, unknown>): Promise<CheckOutcome>;
  accept(value: Record<string, unknown>, outcome: CheckOutcome, attempts: number): Promise<T | Finding[]>;
}

interface Best {
  value: Record<string, unknown>;
  outcome: CheckOutcome;
  softCount: number;
}

export class SpecGenerator {
  constructor(
    private readonly llm: LlmClient | undefined,
    private readonly topics: readonly GuidanceTopic[],
  ) {}

  get configured(): boolean {
    return this.llm !== undefined;
  }

  /** The interactions log (`GET /llm/interactions`): which provider answers and its last calls. */
  interactions(): {
    configured: boolean;
    provider?: string;
    model?: string;
    interactions: InteractionRecord[];
  } {
    if (!this.llm) return { configured: false, interactions: [] };
    return { configured: true, ...this.llm.identity, interactions: this.llm.log.list() };
  }

  /** The prompt the first attempt would send; needs no provider. */
  preview(request: GenerateRequest): Prompt {
    const r = checkRequest(request);
    const prompt = generationPrompt(r, this.topics);
    return r.prompt ? { ...prompt, user: r.prompt } : prompt;
  }

  /** A new spec from a description. @throws LlmError */
  async generate(request: GenerateRequest, options: RunOptions = {}): Promise<GenerateResult> {
    const r = checkRequest(request);
    const first = this.preview(request);
    return this.loop<GenerateResult>(
      {
        purpose: 'generate',
        first,
        what: 'ModelSpec',
        schema: MODEL_SPEC_SCHEMA,
        check: (value) => {
          if (r.modelId && value.id !== r.modelId) value.id = r.modelId;
          return checkCandidate(value);
        },
        accept: (value, outcome, attempts) =>
          Promise.resolve({
            valid: true as const,
            spec: value,
            verification: publicVerification(outcome.verification!),
            attempts,
            topics: first.topics,
            warnings: outcome.findings,
          }),
      },
      options,
    );
  }

  /**
   * An evolution of a stored model from a description, applied through the ordinary evolve path
   * (version check, audit, migration rules). @throws LlmError, CalcError (MODEL_NOT_FOUND, VERSION_CONFLICT)
   */
  async evolve(
    calc: Pick<CalcModelApi, 'getSpec' | 'evolveSpec'>,
    id: string,
    request: GenerateRequest & { expectedRevision?: number },
    options: RunOptions = {},
  ): Promise<EvolveAiResult> {
    const r = checkRequest(request);
    const current = await calc.getSpec(id);
    const includeView = request.includeView ?? current.viewDefinition !== undefined;
    const first = evolutionPrompt(
      { ...r, includeView, current: current as unknown as Record<string, unknown> },
      this.topics,
    );
    const applied = (value: Record<string, unknown>): Record<string, unknown> => {
      const { expectedVersion: _ignored, ...rest } = value;
      return applyEvolution(current, rest);
    };
    return this.loop<EvolveAiResult>(
      {
        purpose: 'evolve',
        first: r.prompt ? { ...first, user: r.prompt } : first,
        what: 'SpecEvolution',
        schema: SPEC_EVOLUTION_SCHEMA,
        check: async (value) => {
          let candidate: Record<string, unknown>;
          try {
            candidate = applied(value);
          } catch (err) {
            return {
              stage: 'invalid',
              hard: true,
              findings: [{ location: 'root', message: publicMessage(err) }],
            };
          }
          return checkCandidate({ ...candidate, id: current.id });
        },
        accept: async (value, outcome, attempts) => {
          // the stored model's own path: the version read above must still be the live one
          const evolution = { ...value, expectedVersion: current.version } as Record<string, unknown>;
          try {
            const done = await calc.evolveSpec(
              id,
              evolution,
              request.expectedRevision !== undefined ? { expectedRevision: request.expectedRevision } : {},
            );
            return {
              id,
              version: done.version,
              ...(done.revision !== undefined ? { revision: done.revision } : {}),
              evolution: value,
              spec: await calc.getSpec(id),
              verification: publicVerification(outcome.verification!),
              attempts,
            };
          } catch (err) {
            if (err instanceof CalcError && err.code === 'EVOLUTION_INVALID') {
              const listed = (err.details.incompatibilities ?? err.details.errors) as Finding[] | undefined;
              return Array.isArray(listed) && listed.length > 0
                ? listed.map((f) => ({
                    location: String(f.location ?? 'root'),
                    message: String(f.message ?? err.message),
                  }))
                : [{ location: 'root', message: err.message }];
            }
            throw err;
          }
        },
      },
      options,
    );
  }

  private async loop<T>(spec: LoopSpec<T>, options: RunOptions): Promise<T> {
    const llm = this.llm;
    if (!llm) throw notConfigured();
    const budgets = llm.budgets;
    const deadline = AbortSignal.timeout(budgets.timeBudgetMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const progress = options.progress ?? (() => {});
    let maxTokens = budgets.maxTokens;
    let truncations = 0;
    let tokensSpent = 0;
    /** Errors per attempt; a parse failure counts as infinitely many (it never unlocks an extra attempt). */
    const counts: number[] = [];
    let user = spec.first.user;
    let lastFindings: Finding[] = [];
    let lastRaw = '';
    let best: Best | undefined;

    /** The end of the budget: a best answer with only view-lint findings is still usable. */
    const finish = async (
      code: 'GENERATION_UNCONVERGED' | 'LLM_BUDGET_EXCEEDED',
      why: string,
    ): Promise<T> => {
      if (best && best.outcome.stage === 'view-lint') {
        const accepted = await spec.accept(best.value, best.outcome, counts.length);
        if (!Array.isArray(accepted)) return accepted;
      }
      throw new LlmError(code, why, {
        attempts: counts.length,
        errors: best ? best.outcome.findings : lastFindings,
        rawResponse: lastRaw.slice(0, MAX_RAW_RESPONSE_CHARS),
        ...(best ? { spec: best.value, verification: publicVerification(best.outcome.verification!) } : {}),
      });
    };
    const failed = (attempt: number, findings: Finding[], count: number, raw: string): void => {
      lastFindings = findings;
      counts.push(count);
      progress({
        phase: 'validation_failed',
        attempt,
        errors: errorLines(findings),
        errorCount: findings.length,
      });
      user = repairPrompt(spec.first, findings, raw, spec.what);
    };

    for (let attempt = 1; ; attempt++) {
      const dropping = counts.length >= 2 && counts.at(-1)! < counts.at(-2)!;
      if (attempt > budgets.maxAttemptsHard || (attempt > budgets.maxAttempts && !dropping))
        return finish(
          'GENERATION_UNCONVERGED',
          `no valid ${spec.what} after ${counts.length} attempts (this server allows ${budgets.maxAttempts}, up to ${budgets.maxAttemptsHard} while the errors drop)`,
        );
      if (tokensSpent >= budgets.tokenBudget)
        return finish(
          'LLM_BUDGET_EXCEEDED',
          `the generation spent its token budget (${tokensSpent} of ${budgets.tokenBudget} tokens) without a valid ${spec.what}`,
        );
      if (attempt > 1) progress({ phase: 'retrying', attempt, maxAttempts: budgets.maxAttemptsHard });
      progress({ phase: 'llm_requesting', attempt, ...llm.identity });
      const request: CompletionRequest = {
        system: spec.first.system,
        user,
        maxTokens,
        temperature: attempt === 1 ? FIRST_TEMPERATURE : repairTemperature(attempt - 1),
        schema: {
          name: spec.what === 'ModelSpec' ? 'submit_spec' : 'submit_evolution',
          description: `The ${spec.what}`,
          schema: spec.schema,
        },
      };
      let answer;
      try {
        answer = await llm.complete(request, { purpose: spec.purpose, signal, attempt });
      } catch (err) {
        if (deadline.aborted && !options.signal?.aborted)
          return finish(
            'LLM_BUDGET_EXCEEDED',
            `the generation ran out of its time budget (${budgets.timeBudgetMs / 1000} s) without a valid ${spec.what}`,
          );
        throw err;
      }
      tokensSpent += answer.inputTokens + answer.outputTokens;
      lastRaw = answer.text;

      const parsed = parseAnswer(answer.text);
      if (!parsed.ok) {
        failed(
          attempt,
          [{ location: 'root', message: parsed.message }],
          Number.POSITIVE_INFINITY,
          answer.text,
        );
        if (answer.truncated) {
          // the first cut-off: the same prompt with more room; the second: ask for less
          if (++truncations === 1) {
            maxTokens = Math.min(2 * maxTokens, budgets.maxTokensHard);
            user = spec.first.user;
          } else user = smallerPrompt(spec.first);
        }
        continue;
      }
      progress({ phase: 'validating', attempt });
      const outcome = await spec.check(parsed.value);
      if (outcome.hard) {
        failed(attempt, outcome.findings, outcome.findings.length, answer.text);
        continue;
      }
      progress({ phase: 'test_running', attempt });
      if (outcome.stage === 'valid') {
        const accepted = await spec.accept(parsed.value, outcome, attempt);
        if (!Array.isArray(accepted)) return accepted;
        failed(attempt, accepted, accepted.length, answer.text);
        continue;
      }
      if (!best || outcome.findings.length < best.softCount)
        best = { value: parsed.value, outcome, softCount: outcome.findings.length };
      if (outcome.stage === 'tests') {
        lastFindings = outcome.findings;
        counts.push(outcome.findings.length);
        progress({ phase: 'test_failed', attempt, failCount: outcome.findings.length });
        user = repairPrompt(spec.first, outcome.findings, answer.text, spec.what);
      } else failed(attempt, outcome.findings, outcome.findings.length, answer.text);
    }
  }
}
