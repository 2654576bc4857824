/**
 * The prompts of spec generation (docs/generate.md): a system text that is stable across calls (the
 * authoring guides, the domain-guidance topic menu and the topics the description touches) and a
 * user text per attempt (the task, then the errors of the previous answer and that answer).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { domainGuidance } from './guidance/catalog.js';
import type { GuidanceTopic } from './guidance/topics.js';

const GUIDES_DIR = fileURLToPath(new URL('../../docs/guides/', import.meta.url));

/** A description longer than this is refused (as Valem does). */
export const MAX_DESCRIPTION_CHARS = 5000;
/** A caller's own prompt longer than this is refused. */
export const MAX_PROMPT_CHARS = 100_000;
/** How much of a rejected answer is quoted back in a repair prompt. */
const MAX_QUOTED_ANSWER_CHARS = 24_000;
/** Descriptions this short get a hint to settle the standard meaning first. */
const SHORT_DESCRIPTION_WORDS = 8;

const guideCache = new Map<string, string>();

function guide(name: string): string {
  let text = guideCache.get(name);
  if (text === undefined) {
    text = readFileSync(`${GUIDES_DIR}${name}.md`, 'utf8');
    guideCache.set(name, text);
  }
  return text;
}

export interface PromptInput {
  description: string;
  modelId?: string;
  includeView: boolean;
  /** Topic ids asked for by the caller; otherwise chosen from the description's words. */
  topics?: readonly string[];
}

export interface Prompt {
  system: string;
  user: string;
  /** The domain-guidance topics included. */
  topics: string[];
}

const STOP_WORDS = new Set([
  'with',
  'from',
  'that',
  'this',
  'each',
  'into',
  'other',
  'over',
  'than',
  'their',
  'them',
  'they',
  'when',
  'where',
  'which',
  'value',
  'values',
  'field',
  'fields',
  'model',
  'number',
  'derived',
]);

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 4 && !STOP_WORDS.has(w));

/** Topics whose id or description shares a word (or its stem) with the description. */
export function topicsFor(description: string, catalog: readonly GuidanceTopic[]): string[] {
  const said = words(description);
  const stem = (w: string): string => w.slice(0, 5);
  const saidStems = new Set(said.map(stem));
  return catalog
    .filter((t) => words(`${t.id.replace(/_/g, ' ')} ${t.description}`).some((w) => saidStems.has(stem(w))))
    .map((t) => t.id);
}

function systemText(
  catalog: readonly GuidanceTopic[],
  chosen: string[],
  includeView: boolean,
  evolution: boolean,
): string {
  const menu = catalog.map((t) => `- ${t.id}: ${t.description}`).join('\n');
  const topicText =
    chosen.length > 0 ? domainGuidance(catalog, chosen).guidance : '(none matched the description)';
  return [
    'You write ModelSpecs for Modelworks: live reactive models described as one JSON object (a JSON Schema for the data, JSONata derivations, constraints, embedded tests).',
    evolution
      ? 'You change an existing model by answering with one SpecEvolution JSON object: targeted edits, never a whole new spec.'
      : 'You answer with one ModelSpec JSON object.',
    '# The ModelSpec format',
    guide('model-spec-format'),
    '# JSONata pitfalls',
    guide('jsonata-gotchas'),
    ...(evolution ? ['# SpecEvolution', guide('spec-evolution')] : []),
    ...(includeView ? ['# The view system', guide('view-system')] : []),
    '# Domain guidance topics',
    menu,
    '## Guidance for this request',
    topicText,
    '# Rules for your answer',
    [
      '- Declare every derived field in the schema with "readOnly": true.',
      '- Seed starting values with a defaultValues rule at path "$" so that every rollback constraint holds on the initial state.',
      '- Include 2 to 5 embedded tests ({description, given, expect}) whose expected numbers you have computed by hand.',
      '- Output JSON only: no prose, no markdown fences.',
    ].join('\n'),
  ].join('\n\n');
}

/** The first attempt's prompt for a new spec. */
export function generationPrompt(input: PromptInput, catalog: readonly GuidanceTopic[]): Prompt {
  const chosen = input.topics ? [...input.topics] : topicsFor(input.description, catalog);
  const short = input.description.trim().split(/\s+/).length <= SHORT_DESCRIPTION_WORDS;
  const user = [
    'Generate a ModelSpec for this domain.',
    input.modelId
      ? `Model ID: ${input.modelId}`
      : 'Model ID: choose a 2-4 word kebab-case id that names the domain.',
    `Description:\n${input.description.trim()}`,
    ...(short
      ? [
          'The description is short: first settle the standard, widely used definition of this domain (its usual inputs, formulas and limits), then model that.',
        ]
      : []),
    input.includeView
      ? 'Include a complete viewDefinition with inputs for the editable fields and displays for the derived ones.'
      : 'Do not include a viewDefinition. Output only JSON.',
  ].join('\n\n');
  return { system: systemText(catalog, chosen, input.includeView, false), user, topics: chosen };
}

/** The first attempt's prompt for an evolution of `current`. */
export function evolutionPrompt(
  input: PromptInput & { current: Record<string, unknown> },
  catalog: readonly GuidanceTopic[],
): Prompt {
  const chosen = input.topics ? [...input.topics] : topicsFor(input.description, catalog);
  const user = [
    'Change this model as requested, answering with one SpecEvolution JSON object.',
    `Current spec:\n${JSON.stringify(input.current, null, 2)}`,
    `Requested change:\n${input.description.trim()}`,
    'Prefer targeted edits (upsertDerivations, upsertSchemaNodes, upsertSchemaDefs, upsertConstants, upsertViews, upsertComponents) over newSchema or newViewDefinition. Constants are values; constraints are invariants. Give newVersion (a higher semver) and newTests covering the change. Do not set expectedVersion. Output only JSON.',
  ].join('\n\n');
  return { system: systemText(catalog, chosen, input.includeView, true), user, topics: chosen };
}

export interface Finding {
  location: string;
  message: string;
}

/** A hint per kind of finding, so a small model knows what to change. */
function fixHint(f: Finding): string {
  const m = f.message;
  if (f.location === 'root') return 'FIX: answer with one complete JSON object and nothing else';
  if (/readOnly|derived field/i.test(m))
    return 'FIX: declare the derived field in the schema with "readOnly": true';
  if (/unknown function/i.test(m)) return 'FIX: use a JSONata built-in or a library export';
  if (/not bound|evaluates to nothing/i.test(m)) return 'FIX: refer to fields by name, without $ or $.';
  if (/constraint/i.test(f.location) || /initial state/i.test(m))
    return 'FIX: make the $ defaultValues satisfy every rollback constraint, or loosen the constraint';
  if (/tests\[/.test(f.location))
    return 'FIX: recompute the expected value by hand; fix the expression or the expectation';
  if (/viewDefinition/.test(f.location))
    return 'FIX: bind components to fields that exist; write display text as expressions';
  return 'FIX: follow the rule the message states';
}

const quote = (raw: string): string =>
  raw.length > MAX_QUOTED_ANSWER_CHARS ? `${raw.slice(0, MAX_QUOTED_ANSWER_CHARS)}\n…(cut)` : raw;

/** A repair prompt: the task again, the findings with FIX hints, and the rejected answer. */
export function repairPrompt(
  first: Prompt,
  findings: readonly Finding[],
  rawAnswer: string,
  what: 'ModelSpec' | 'SpecEvolution',
): string {
  const list = findings
    .slice(0, 40)
    .map((f) => `- ${f.location}: ${f.message} (${fixHint(f)})`)
    .join('\n');
  return [
    first.user,
    `Your previous answer was rejected:\n${list}`,
    `Your previous answer:\n${quote(rawAnswer)}`,
    `Answer again with the whole corrected ${what} as JSON only.`,
  ].join('\n\n');
}

/** After a second cut-off answer: ask for less. */
export function smallerPrompt(first: Prompt): string {
  return [
    first.user,
    'Your previous answers were cut off at the length limit. Produce a smaller spec: fewer fields, short descriptions, at most 3 tests, no viewDefinition. JSON only.',
  ].join('\n\n');
}
