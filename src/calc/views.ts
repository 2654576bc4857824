/**
 * View evaluation: a ViewSpec resolved against a model's live state. Components keep the common
 * fields and their own type's fields (view-catalog.ts), get the value at their `bind`,
 * visibility/read-only/required inherited from meta when not given, and display expressions
 * (`text`, `value`, `delta`, `caption`, `trend`) evaluated when they contain `$`. A `sectionList`
 * gets one row per element of its bound array, each row its item view (or its own components)
 * with `[*]` in binds resolved to that row.
 */
import { formatPath, parseAddress, WILDCARD, type Path } from './address.js';
import { ABSENT, getAt } from './document.js';
import { CalcError } from './errors.js';
import { compileExpression, isTruthy } from './expression.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from './json.js';
import type { ModelRuntime } from './runtime.js';
import {
  COMMON_COMPONENT_FIELDS,
  COMPONENT_CATALOG,
  DISPLAY_EXPRESSION_FIELDS,
  STATE_FIELDS,
} from './view-catalog.js';

export interface EvaluatedView {
  modelId: string;
  viewId: string;
  title?: string;
  layout: string;
  columns?: number;
  /** How the client formats numbers (the view's own, else the viewDefinition's): a BCP 47 tag, an ISO 4217 code. */
  locale?: string;
  currency?: string;
  /** Handlers pass through unevaluated; the client runs them. */
  onOpen?: JsonValue;
  onClose?: JsonValue;
  components: JsonObject[];
}

/** Their text is shown as written; the client styles it (never evaluated server-side). */
const NOT_EVALUATED_TEXT = new Set(['badge', 'alert', 'callout']);
/** Rows a sectionList evaluates at most (a view is for people; the rest is left to get_state). */
export const MAX_SECTION_ROWS = 500;

function viewsOf(viewDefinition: unknown): JsonObject[] {
  const vd = isObject(viewDefinition) ? viewDefinition : undefined;
  return vd && Array.isArray(vd.views) ? (vd.views.filter(isObject) as JsonObject[]) : [];
}

/** Picks the view: by id, else the default view, else the first. */
export function findView(viewDefinition: unknown, viewId?: string): JsonObject {
  const views = viewsOf(viewDefinition);
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
  const vd = viewDefinition as JsonObject;
  return views.find((x) => x.id === vd.defaultView) ?? views[0]!;
}

/** Ids of every view some component uses as a sectionList `itemView`. */
export function itemViewIds(viewDefinition: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (components: unknown): void => {
    if (!Array.isArray(components)) return;
    for (const c of components) {
      if (!isObject(c)) continue;
      if (typeof c.itemView === 'string') out.add(c.itemView);
      walk(c.components);
    }
  };
  for (const v of viewsOf(viewDefinition)) walk(v.components);
  return out;
}

/**
 * The views a person navigates between (tabs in a card): every view except those reached only as
 * an item view; the default view first.
 */
export function topLevelViewIds(viewDefinition: unknown): string[] {
  const views = viewsOf(viewDefinition);
  if (views.length === 0) return [];
  const items = itemViewIds(viewDefinition);
  const ids = views.map((v) => String(v.id)).filter((id) => !items.has(id));
  const first = String(findView(viewDefinition).id);
  return ids.includes(first) ? [first, ...ids.filter((id) => id !== first)] : ids;
}

/** One row a component is evaluated inside: `[*]` after `array` means `index`. */
interface RowScope {
  array: Path;
  index: number;
  row: unknown;
}

class ViewEvaluator {
  constructor(
    private readonly runtime: ModelRuntime,
    private readonly state: JsonObject,
    private readonly views: JsonObject[],
    /** The viewDefinition's own `locale` and `currency`, which every view inherits. */
    private readonly numbers: JsonObject = {},
  ) {}

  async view(view: JsonObject): Promise<EvaluatedView> {
    const result: EvaluatedView = {
      modelId: this.runtime.model.spec.id,
      viewId: String(view.id),
      layout: typeof view.layout === 'string' ? view.layout : 'vertical',
      components: await this.components(view.components, []),
    };
    if (typeof view.label === 'string') result.title = view.label;
    if (typeof view.columns === 'number') result.columns = view.columns;
    for (const key of ['locale', 'currency'] as const) {
      const v = view[key] ?? this.numbers[key];
      if (typeof v === 'string') result[key] = v;
    }
    if (view.onOpen !== undefined && view.onOpen !== null) result.onOpen = cloneJson(view.onOpen);
    if (view.onClose !== undefined && view.onClose !== null) result.onClose = cloneJson(view.onClose);
    return result;
  }

  private async components(list: unknown, rows: RowScope[]): Promise<JsonObject[]> {
    const out: JsonObject[] = [];
    if (!Array.isArray(list)) return out;
    for (const c of list) if (isObject(c)) out.push(await this.component(c as JsonObject, rows));
    return out;
  }

  /** A bind resolved inside the enclosing rows: `$.items[*].qty` in row 2 → `$.items[2].qty`. */
  private resolvePath(address: unknown, rows: RowScope[]): Path | undefined {
    if (typeof address !== 'string') return undefined;
    const parsed = parseAddress(address);
    if (!parsed.ok) return undefined;
    let path = parsed.path;
    for (const scope of rows) {
      const n = scope.array.length;
      const sameArray = path.length > n && scope.array.every((s, i) => s === path[i]);
      if (sameArray && path[n] === WILDCARD) path = [...path.slice(0, n), scope.index, ...path.slice(n + 1)];
    }
    return path;
  }

  private valueAt(path: Path | undefined): JsonValue | undefined {
    if (!path || path.includes(WILDCARD)) return undefined;
    const v = getAt(this.state, path);
    return v === ABSENT || v === null ? undefined : cloneJson(v);
  }

  private async evaluate(text: string, rows: RowScope[]): Promise<JsonValue> {
    const c = compileExpression(text);
    if (!c.ok) return text;
    const row = rows[rows.length - 1];
    const bindings = row
      ? { ...this.runtime.model.bindings, parent: row.row, index: row.index }
      : this.runtime.model.bindings;
    try {
      const v = await c.expr.evaluate(this.state, bindings);
      return v === undefined ? null : (cloneJson(v) as JsonValue);
    } catch {
      return null;
    }
  }

  private async component(raw: JsonObject, rows: RowScope[]): Promise<JsonObject> {
    const type = String(raw.type);
    const info = COMPONENT_CATALOG[type];
    // a catalogued type keeps only its fields; an unknown one (only possible past the validator) verbatim
    const keep = info ? new Set([...COMMON_COMPONENT_FIELDS, ...info.fields]) : undefined;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(raw)) {
      if (v === null || k === 'components' || k === 'className') continue;
      if (keep && !keep.has(k)) continue;
      out[k] = cloneJson(v);
    }
    const bindPath = this.resolvePath(raw.bind, rows);
    if (bindPath && typeof raw.bind === 'string' && rows.length > 0) {
      const concrete = formatPath(bindPath);
      if (concrete !== raw.bind) out.bind = concrete;
    }

    // value: a display expression or literal wins; otherwise the value at bind
    for (const f of DISPLAY_EXPRESSION_FIELDS) {
      const v = raw[f];
      if (f === 'text' && NOT_EVALUATED_TEXT.has(type)) continue;
      if (typeof v === 'string' && v.includes('$')) out[f] = await this.evaluate(v, rows);
    }
    if (raw.value === undefined || raw.value === null) {
      const bound = this.valueAt(bindPath);
      if (bound !== undefined) out.value = bound;
    }

    await this.stateFlags(raw, out, bindPath, rows);
    await this.typeSpecific(type, raw, out, rows);

    if (Array.isArray(raw.components) && type !== 'sectionList')
      out.components = await this.components(raw.components, rows);
    return out;
  }

  /** visible/enabled/readOnly/required: explicit, an always-evaluated expression, or from meta. */
  private async stateFlags(
    raw: JsonObject,
    out: JsonObject,
    bindPath: Path | undefined,
    rows: RowScope[],
  ): Promise<void> {
    const address = bindPath ? formatPath(bindPath) : undefined;
    const meta = (prop: string): JsonValue | undefined =>
      address ? this.runtime.getMeta(`${address}#${prop}`) : undefined;
    const flag = async (name: string, inherit: () => boolean): Promise<boolean> => {
      const v = raw[name];
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') return isTruthy(await this.evaluate(v, rows));
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
  }

  private async typeSpecific(
    type: string,
    raw: JsonObject,
    out: JsonObject,
    rows: RowScope[],
  ): Promise<void> {
    switch (type) {
      case 'dateRangeField': {
        const from = this.valueAt(this.resolvePath(raw.bindFrom, rows));
        const to = this.valueAt(this.resolvePath(raw.bindTo, rows));
        if (from !== undefined) out.valueFrom = from;
        if (to !== undefined) out.valueTo = to;
        return;
      }
      case 'keyValueList':
      case 'summaryList': {
        if (!Array.isArray(raw.items)) return;
        const items: JsonObject[] = [];
        for (const item of raw.items) {
          if (!isObject(item)) continue;
          const e: JsonObject = {};
          for (const [k, v] of Object.entries(item)) if (v !== null) e[k] = cloneJson(v);
          const p = this.resolvePath(item.bind, rows);
          if (p && typeof item.bind === 'string') e.bind = formatPath(p);
          if (typeof item.text === 'string' && item.text.includes('$'))
            e.text = await this.evaluate(item.text, rows);
          const v = this.valueAt(p);
          if (v !== undefined) e.value = v;
          items.push(e);
        }
        out.items = items;
        return;
      }
      case 'jsonViewer':
        if (raw.bind === undefined || raw.bind === null) out.value = cloneJson(this.state);
        return;
      case 'effectStatus': {
        const effect = this.runtime.model.effects.find((e) => e.spec.id === raw.effectId);
        const status = effect?.statusPath ? this.valueAt(effect.statusPath) : undefined;
        if (status !== undefined) out.status = status;
        const error = this.valueAt(this.resolvePath(raw.errorPath, rows));
        if (error !== undefined) out.error = error;
        return;
      }
      case 'sectionList':
        await this.sectionRows(raw, out, rows);
        return;
      default:
        return;
    }
  }

  /** One evaluated row per element of the bound array, with the item view's (or own) components. */
  private async sectionRows(raw: JsonObject, out: JsonObject, rows: RowScope[]): Promise<void> {
    const arrayPath = this.resolvePath(raw.bind, rows);
    const template =
      typeof raw.itemView === 'string' ? this.views.find((v) => v.id === raw.itemView) : undefined;
    const components = template ? template.components : raw.components;
    const list = arrayPath && !arrayPath.includes(WILDCARD) ? getAt(this.state, arrayPath) : ABSENT;
    delete out.value; // the rows carry the values
    const evaluated: JsonObject[] = [];
    if (arrayPath && Array.isArray(list)) {
      // the item view's binds name the rows with [*] after the list's own (pattern) address
      const pattern = parseAddress(String(raw.bind));
      const scopeArray = pattern.ok ? pattern.path : arrayPath;
      const count = Math.min(list.length, MAX_SECTION_ROWS);
      for (let i = 0; i < count; i++) {
        const scope: RowScope[] = [...rows, { array: scopeArray, index: i, row: list[i] }];
        if (scopeArray !== arrayPath) scope.push({ array: arrayPath, index: i, row: list[i] });
        evaluated.push({
          index: i,
          bind: formatPath([...arrayPath, i]),
          components: await this.components(components, scope),
        });
      }
      if (list.length > count) out.truncated = true;
    }
    out.rows = evaluated;
    if (template && typeof template.layout === 'string' && out.layout === undefined)
      out.layout = template.layout;
  }
}

function numbersOf(viewDefinition: unknown): JsonObject {
  const vd = isObject(viewDefinition) ? viewDefinition : {};
  const out: JsonObject = {};
  if (typeof vd.locale === 'string') out.locale = vd.locale;
  if (typeof vd.currency === 'string') out.currency = vd.currency;
  return out;
}

/** Evaluates one view against the runtime's merged state. */
export async function evaluateView(runtime: ModelRuntime, viewId?: string): Promise<EvaluatedView> {
  const vd = runtime.model.spec.viewDefinition;
  const view = findView(vd, viewId);
  return new ViewEvaluator(runtime, await runtime.getState(), viewsOf(vd), numbersOf(vd)).view(view);
}

/** Evaluates every top-level view (see topLevelViewIds), default first; [] without views. */
export async function evaluateViews(runtime: ModelRuntime): Promise<EvaluatedView[]> {
  const vd = runtime.model.spec.viewDefinition;
  const views = viewsOf(vd);
  if (views.length === 0) return [];
  const evaluator = new ViewEvaluator(runtime, await runtime.getState(), views, numbersOf(vd));
  const out: EvaluatedView[] = [];
  for (const id of topLevelViewIds(vd)) out.push(await evaluator.view(views.find((v) => v.id === id)!));
  return out;
}
