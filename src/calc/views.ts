/**
 * View evaluation: a ViewSpec resolved against a model's live state. Components get the value at
 * their `bind`, visibility/read-only/required inherited from meta when not given, and display
 * expressions (`text`, `value`, `delta`, `caption`, `trend`) evaluated when they contain `$`.
 */
import { parseAddress } from './address.js';
import { ABSENT, getAt } from './document.js';
import { CalcError } from './errors.js';
import { compileExpression, isTruthy } from './expression.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from './json.js';
import type { ModelRuntime } from './runtime.js';

export interface EvaluatedView {
  modelId: string;
  viewId: string;
  title?: string;
  layout: string;
  components: JsonObject[];
}

const DISPLAY_FIELDS = ['text', 'value', 'delta', 'caption', 'trend'];
/** Their text is shown as written; the client styles it (never evaluated server-side). */
const NOT_EVALUATED_TEXT = new Set(['badge', 'alert', 'callout']);
const STATE_FIELDS = ['visible', 'enabled', 'readOnly', 'required'] as const;

/** Picks the view: by id, else the default view, else the first. */
export function findView(viewDefinition: unknown, viewId?: string): JsonObject {
  const vd = isObject(viewDefinition) ? viewDefinition : undefined;
  const views = vd && Array.isArray(vd.views) ? (vd.views.filter(isObject) as JsonObject[]) : [];
  if (views.length === 0)
    throw new CalcError('VIEW_NOT_FOUND', 'the model has no viewDefinition; add one with evolve_spec');
  if (viewId !== undefined) {
    const v = views.find((x) => x.id === viewId);
    if (!v)
      throw new CalcError(
        'VIEW_NOT_FOUND',
        `no view '${viewId}'; views: ${views.map((x) => String(x.id)).join(', ')}`,
      );
    return v;
  }
  return views.find((x) => x.id === vd?.defaultView) ?? views[0]!;
}

/** Evaluates one view against the runtime's merged state. */
export async function evaluateView(runtime: ModelRuntime, viewId?: string): Promise<EvaluatedView> {
  const view = findView(runtime.model.spec.viewDefinition, viewId);
  const state = await runtime.getState();
  const bindings = runtime.model.bindings;
  const evalText = async (text: string): Promise<JsonValue> => {
    const c = compileExpression(text);
    if (!c.ok) return text;
    try {
      const v = await c.expr.evaluate(state, bindings);
      return v === undefined ? null : (cloneJson(v) as JsonValue);
    } catch {
      return null;
    }
  };
  const component = async (raw: JsonObject): Promise<JsonObject | null> => {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(raw)) {
      if (v === null || k === 'components' || k === 'className') continue;
      out[k] = cloneJson(v);
    }
    const bind = typeof raw.bind === 'string' ? raw.bind : undefined;
    const parsed = bind ? parseAddress(bind) : undefined;
    if (parsed?.ok) {
      const value = getAt(state, parsed.path);
      if (value !== ABSENT && value !== null && raw.value === undefined) out.value = cloneJson(value);
    }
    for (const f of DISPLAY_FIELDS) {
      const v = raw[f];
      if (f === 'text' && NOT_EVALUATED_TEXT.has(String(raw.type))) continue;
      if (typeof v === 'string' && v.includes('$') && !(f === 'value' && bind)) out[f] = await evalText(v);
    }
    // state flags: explicit boolean, an always-evaluated expression string, or inherited from meta
    const meta = (prop: string): JsonValue | undefined =>
      bind ? runtime.getMeta(`${bind}#${prop}`) : undefined;
    const flag = async (name: (typeof STATE_FIELDS)[number], inherit: () => boolean): Promise<boolean> => {
      const v = raw[name];
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') return isTruthy(await evalText(v));
      return inherit();
    };
    const visible = await flag('visible', () => meta('relevant') !== false);
    const readOnly = await flag('readOnly', () => meta('read_only') === true);
    const required = await flag('required', () => meta('required') === true);
    const enabled = await flag('enabled', () => !readOnly);
    for (const f of STATE_FIELDS) delete out[f];
    if (!visible) out.visible = false;
    if (!enabled) out.enabled = false;
    if (readOnly) out.readOnly = true;
    if (required) out.required = true;
    if (Array.isArray(raw.components)) {
      const children: JsonObject[] = [];
      for (const c of raw.components) if (isObject(c)) children.push((await component(c))!);
      out.components = children;
    }
    return out;
  };
  const components: JsonObject[] = [];
  for (const c of Array.isArray(view.components) ? view.components : []) {
    if (isObject(c)) components.push((await component(c))!);
  }
  const result: EvaluatedView = {
    modelId: runtime.model.spec.id,
    viewId: String(view.id),
    layout: typeof view.layout === 'string' ? view.layout : 'vertical',
    components,
  };
  if (typeof view.label === 'string') result.title = view.label;
  return result;
}
