/**
 * Model cards (MCP Apps): the tools that hand a person a live model as an interactive card inside
 * the chat, and the card resource itself. A spec the card holds runs on the stateless CardRunner;
 * a stored model's edits are CalcService mutations. Clients that do not show cards get
 * render_model as a text-only tool and none of the card-only tools.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { isObject, type JsonObject } from '../calc/index.js';
import {
  CardError,
  cardPayload,
  issuesOf,
  recomputeAnswer,
  specHash,
  type CardRunner,
  type ComputedCard,
} from '../service/card-runner.js';
import { cardHtml } from '../service/web-assets.js';
import type { CalcService } from '../service/calc-service.js';
import type { ShareLinks } from '../service/share-links.js';
import { GUIDES } from './resources.js';
import { okResult, type ToolResult } from './results.js';
import { input, output, READ, SPEC_REFERENCE, WRITE, type ToolDefinition } from './tool.js';

export const CARD_URI = 'ui://valem/model-card.html';
export const CARD_MIME = 'text/html;profile=mcp-app';
/** The MCP Apps extension id a client lists under `capabilities.extensions`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** Where a tool result carries the card's payload. */
export const CARD_META_KEY = 'valem/card';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
export { CARD_HTML_PATH } from '../service/web-assets.js';

/**
 * Does this client show cards? Yes when it lists the UI extension, or sends no extensions map at
 * all (older hosts that render `ui://` resources without advertising them).
 */
export function clientShowsCards(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (extensions === undefined || extensions === null) return true;
  return isObject(extensions) && extensions[UI_EXTENSION] !== undefined;
}

export const CARD_RESOURCE = {
  uri: CARD_URI,
  name: 'model-card',
  title: 'Model card',
  mimeType: CARD_MIME,
  description: 'The interactive model card (MCP Apps view) shown by render_model and show_model',
};

/** resources/read of the card: one self-contained HTML file that fetches nothing. */
export function readCardResource(): { uri: string; mimeType: string; text: string; _meta: JsonObject } {
  return {
    uri: CARD_URI,
    mimeType: CARD_MIME,
    text: cardHtml(),
    _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
  };
}

/** The text an assistant reads before authoring a card: the guides plus the card notes. */
export function specGuideText(): string {
  const read = (name: string): string => readFileSync(`${packageRoot}docs/guides/${name}.md`, 'utf8');
  const names = ['model-spec-format', 'view-system', 'jsonata-gotchas', 'model-cards'];
  return names
    .filter((n) => n === 'model-cards' || GUIDES.some((g) => g.name === n))
    .map(read)
    .join('\n\n---\n\n');
}

const INPUTS = {
  type: 'object',
  description: 'Canonical address → value, over the defaults',
};
const SPEC_HASH = { type: 'string', description: 'The specHash render_model returned' };
const APP_ONLY = (): JsonObject => ({ ui: { resourceUri: CARD_URI, visibility: ['app'] } });
const WITH_CARD = (): JsonObject => ({
  ui: { resourceUri: CARD_URI, visibility: ['model', 'app'] },
  'ui/resourceUri': CARD_URI,
});

/** Listed on a tool whose result the card shows (MCP Apps): the host opens the card beside it. */
export const SHOWN_IN_CARD = WITH_CARD;

/** How the card names and formats a simulated path: the view component bound to it, if any. */
interface FieldNote {
  label?: string;
  format?: string;
  currency?: string;
}

/**
 * What the card needs besides a simulate result (which names paths only): the model's name, the
 * label and number format its views give each simulated path, and each constraint's message and
 * policy (a rollback or a flag).
 * Only the paths asked about are kept, so the payload stays small whatever the spec holds.
 */
export function simulationCardPayload(spec: unknown, paths: readonly string[]): JsonObject {
  const s = obj(spec);
  const wanted = new Set(paths);
  const fields = new Map<string, FieldNote>();
  const walk = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const c of list.map(obj)) {
      const bind = str(c.bind);
      if (wanted.has(bind) && !fields.has(bind)) {
        const note: FieldNote = {};
        if (str(c.label)) note.label = str(c.label);
        const format =
          str(c.format) ||
          (c.type === 'currencyField' ? 'currency' : c.type === 'percentField' ? 'percent' : '');
        if (format) note.format = format;
        if (str(c.currency)) note.currency = str(c.currency);
        fields.set(bind, note);
      }
      walk(c.components);
    }
  };
  const views = obj(s.viewDefinition).views;
  if (Array.isArray(views)) for (const v of views) walk(obj(v).components);
  const constraints = new Map<string, JsonObject>();
  if (Array.isArray(s.constraints))
    for (const c of s.constraints.map(obj))
      if (str(c.id))
        constraints.set(str(c.id), {
          message: str(c.message),
          policy: (str(c.policy) || 'rollback').toLowerCase(),
        });
  return {
    mode: 'simulation',
    modelId: str(s.id),
    ...(str(s._name) ? { title: str(s._name) } : {}),
    fields: Object.fromEntries(fields) as JsonObject,
    constraints: Object.fromEntries(constraints),
  };
}

function structuredError(payload: Record<string, unknown>): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }],
    structuredContent: payload,
    isError: true,
  };
}

/** Runs a tool body, turning card refusals into structured error results. */
async function guarded(body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof CardError) return structuredError(err.payload);
    throw err;
  }
}

const obj = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What the stored-model card tools need: the embedded service (remote mode has no card endpoint). */
export type CardModelSource = Pick<CalcService, 'getCard' | 'getSpec' | 'mutate'>;

export interface CardToolsOptions {
  /** Omitted in remote mode: show_model and valem_card_edit are then not offered. */
  calc?: CardModelSource;
  runner: CardRunner;
  /** Whether the client shows cards (see clientShowsCards). */
  ui: boolean;
  /** Present when the server can open a card from a link (modelworks serve). */
  shareLinks?: ShareLinks;
}

/** The card tools for one client. */
export function cardTools(options: CardToolsOptions): ToolDefinition[] {
  const { calc, runner, ui, shareLinks } = options;
  const links = shareLinksFor(shareLinks);
  const stateless = { runner, ui, links, canShare: shareLinks !== undefined };
  const basic = [specGuideTool(), renderModelTool(stateless), explainValueTool(runner)];
  if (!ui) return basic;
  const storedTools = calc ? [showModelTool(calc), cardEditTool(calc)] : [];
  return [...basic, recomputeTool(runner, links), ...storedTools].map((t) => {
    const name = t.name;
    const meta =
      name === 'render_model' || name === 'show_model'
        ? WITH_CARD()
        : name === 'valem_recompute' || name === 'valem_card_edit'
          ? APP_ONLY()
          : undefined;
    return meta ? { ...t, _meta: meta } : t;
  });
}

type Links = (spec: unknown, inputs: Record<string, unknown>) => Record<string, string>;

/** shareUrl and embedUrl for a spec and inputs, when the server can open cards from links. */
function shareLinksFor(shareLinks: ShareLinks | undefined): Links {
  return (spec, inputs) => {
    if (!shareLinks || !isObject(spec)) return {};
    const out: Record<string, string> = {};
    const share = shareLinks.shareUrl({ spec, inputs });
    const embedUrl = shareLinks.embedUrl({ spec, inputs });
    if (share) out.shareUrl = share;
    if (embedUrl) out.embedUrl = embedUrl;
    return out;
  };
}

function specGuideTool(): ToolDefinition {
  return {
    name: 'valem_spec_guide',
    title: 'Spec guide',
    description:
      'The ModelSpec format, the view system, JSONata gotchas and model-card notes in one text. Read it before authoring a spec for render_model.',
    inputSchema: input({}),
    annotations: READ,
    run: () => Promise.resolve({ content: [{ type: 'text', text: specGuideText() }] }),
  };
}

/** render_model: a spec computed with the given inputs; in a client that shows cards, the card too. */
function renderModelTool({
  runner,
  ui,
  links,
  canShare,
}: {
  runner: CardRunner;
  ui: boolean;
  links: Links;
  canShare: boolean;
}): ToolDefinition {
  const statelessPayload = (card: ComputedCard, given: Record<string, unknown>): JsonObject =>
    cardPayload(card, given, canShare);
  return {
    name: 'render_model',
    title: 'Render model',
    description: `Show a ModelSpec (with a viewDefinition) as ${ui ? 'an interactive card the user can edit' : 'computed values'}. Validates it, runs its tests (a failure is an error), computes it with the optional inputs: {modelId, version, specHash, inputs, outputs, flags, warnings}; refused inputs fall back to the defaults, listed in rejectedInputs. An invalid spec gives {valid:false, errors[]}. At most 64 KB and 200 expressions. Nothing is registered.`,
    inputSchema: input({ spec: SPEC_REFERENCE, inputs: INPUTS }, ['spec']),
    outputSchema: output(
      {
        modelId: { type: 'string' },
        version: { type: 'string' },
        specHash: { type: 'string' },
        inputs: { type: 'object' },
        outputs: { type: 'object' },
        flags: { type: 'array' },
        warnings: { type: 'array' },
        rejectedInputs: { type: 'array' },
        shareUrl: { type: 'string' },
        embedUrl: { type: 'string' },
        valid: { type: 'boolean' },
        errors: { type: 'array' },
      },
      ['modelId', 'specHash'],
    ),
    annotations: READ,
    run: (a) =>
      guarded(async () => {
        const given = obj(a.inputs);
        const compiled = await runner.compile(a.spec);
        const card = await runner.render(compiled, given);
        const accepted = Object.fromEntries(
          Object.entries(given).filter(([p]) => !card.rejectedInputs.some((r) => r.path === p)),
        );
        const result: Record<string, unknown> = {
          modelId: compiled.spec.id,
          version: compiled.spec.version,
          specHash: compiled.specHash,
          inputs: card.inputs,
          outputs: card.outputs,
          flags: card.flags,
          warnings: compiled.warnings,
        };
        if (card.rejectedInputs.length > 0) result.rejectedInputs = card.rejectedInputs;
        Object.assign(result, links(a.spec, accepted));
        const out = okResult(result, 'the model computes too many values for a tool result');
        if (ui && !out.isError) out._meta = { [CARD_META_KEY]: statelessPayload(card, accepted) };
        return out;
      }),
  };
}

function explainValueTool(runner: CardRunner): ToolDefinition {
  return {
    name: 'explain_value',
    title: 'Explain value',
    description:
      'How a value of a rendered model was computed for the given inputs: {path, kind, label, value, expression, inputs[], baseInputs[]} and a one-line text to quote. A row is explained through its [*] rule; an unknown path lists the fields. Pass spec again on spec_unknown.',
    inputSchema: input(
      {
        path: { type: 'string', description: 'Canonical address, e.g. "$.items[0].total"' },
        specHash: SPEC_HASH,
        inputs: INPUTS,
        spec: SPEC_REFERENCE,
      },
      ['path', 'specHash'],
    ),
    outputSchema: output(
      {
        path: { type: 'string' },
        kind: { type: 'string' },
        label: { type: 'string' },
        value: {},
        expression: { type: ['string', 'null'] },
        inputs: { type: 'array' },
        baseInputs: { type: 'array' },
      },
      ['path', 'kind'],
    ),
    annotations: READ,
    run: (a) =>
      guarded(async () => {
        const { text, ...why } = await runner.explain(str(a.specHash), str(a.path), obj(a.inputs), a.spec);
        return {
          content: [{ type: 'text', text }],
          structuredContent: why as unknown as Record<string, unknown>,
        };
      }),
  };
}

/** valem_recompute: the card's own call to recompute a rendered spec with the inputs on screen. */
function recomputeTool(runner: CardRunner, links: Links): ToolDefinition {
  return {
    name: 'valem_recompute',
    title: 'Recompute card',
    description:
      'Card-only: recompute a rendered spec with the inputs on screen → {specHash, state, meta, flags, views} or {specHash, rejected, issues}; {error:"spec_unknown"}: call again with spec. share:true adds shareUrl/embedUrl.',
    inputSchema: input(
      { specHash: SPEC_HASH, inputs: INPUTS, spec: SPEC_REFERENCE, share: { type: 'boolean' } },
      ['specHash', 'inputs'],
    ),
    annotations: READ,
    run: (a) =>
      guarded(async () => {
        const inputs = obj(a.inputs);
        const outcome = await runner.recompute(str(a.specHash), inputs, a.spec);
        return okResult({
          ...recomputeAnswer(outcome),
          ...(!outcome.rejected && a.share === true ? links(outcome.card.compiled.spec, inputs) : {}),
        });
      }),
  };
}

/** A stored model as the card shows it; spec and graph only when the card's hash is stale. */
export async function storedCard(
  stored: CardModelSource,
  id: string,
  knownHash?: string,
): Promise<Record<string, unknown>> {
  const card = await stored.getCard(id);
  const hash = specHash(card.spec);
  const out: Record<string, unknown> = {
    specHash: hash,
    state: card.state,
    meta: card.meta,
    flags: card.flags.filter((f) => f.policy === 'flag'),
    views: card.views,
    outputs: card.outputs,
    modelId: id,
    version: card.spec.version,
  };
  if (knownHash !== hash) {
    out.spec = card.spec;
    out.graph = card.graph;
  }
  return out;
}

function showModelTool(stored: CardModelSource): ToolDefinition {
  return {
    name: 'show_model',
    title: 'Show model',
    description:
      'Show a stored model (made with create_model) as an interactive card: its current state, the flag rules failing now and its graph. The user’s edits in the card are saved to the model as mutations. Returns {modelId, version, outputs, flags}. A model without a viewDefinition is an error: add one with evolve_spec.',
    inputSchema: input({ id: { type: 'string', description: 'Model id' } }, ['id']),
    outputSchema: output(
      {
        modelId: { type: 'string' },
        version: { type: 'string' },
        outputs: { type: 'object' },
        flags: { type: 'array' },
      },
      ['modelId', 'version'],
    ),
    annotations: READ,
    run: async (a) => {
      const id = str(a.id);
      const spec = await stored.getSpec(id);
      if (!isObject(spec.viewDefinition) || !Array.isArray(spec.viewDefinition.views))
        return structuredError({
          error: 'No view',
          message: `model '${id}' has no viewDefinition; add one with evolve_spec before show_model`,
        });
      const { outputs, ...card } = await storedCard(stored, id);
      const out = okResult({ modelId: id, version: card.version, outputs, flags: card.flags });
      if (!out.isError) out._meta = { [CARD_META_KEY]: { mode: 'stored', ...card } as JsonObject };
      return out;
    },
  };
}

/** valem_card_edit: the card's own call to save edits to a stored model (or read it back). */
function cardEditTool(stored: CardModelSource): ToolDefinition {
  return {
    name: 'valem_card_edit',
    title: 'Edit from card',
    description:
      'Card-only: save edits to a stored model as one mutate → {specHash, state, meta, flags, views} (+ spec and graph when specHash is stale) or {specHash, rejected, issues}. No mutations: read it back.',
    inputSchema: input({ id: { type: 'string' }, specHash: SPEC_HASH, mutations: { type: 'object' } }, [
      'id',
      'specHash',
    ]),
    annotations: WRITE,
    run: async (a) => {
      const id = str(a.id);
      const mutations = obj(a.mutations);
      if (Object.keys(mutations).length > 0) {
        try {
          await stored.mutate(id, mutations, { source: 'person' }); // the person's edit in the card
        } catch (err) {
          const issues = issuesOf(err);
          if (!issues) throw err;
          const current = specHash(await stored.getSpec(id));
          return okResult({ specHash: current, rejected: true, issues });
        }
      }
      return okResult(await storedCard(stored, id, str(a.specHash)));
    },
  };
}
