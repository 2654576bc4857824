/**
 * `validate_spec`'s view section: view and component ids, component types, and warnings for binds
 * that name nothing, display text that will show literally and number formats (validator-format.ts).
 */
import { parseAddress, WILDCARD, type Path } from './address.js';
import { isObject, type JsonObject } from './json.js';
import { deref } from './schema.js';
import type { ModelSpec } from './spec.js';
import { checkPercentBinds, checkViewNumbers } from './validator-format.js';
import { checkUnique, nearest, type Report } from './validator-report.js';
import {
  COMPONENT_TYPES,
  DISPLAY_EXPRESSION_FIELDS,
  isComponentType,
  PLAIN_TEXT_FIELDS,
} from './view-catalog.js';

interface ViewContext {
  spec: ModelSpec;
  viewIds: Set<string>;
  fieldNames: Set<string>;
  report: Report;
}

export function checkView(spec: ModelSpec, report: Report): void {
  let def: unknown = spec.viewDefinition;
  if (def === undefined) return;
  if (typeof def === 'string') {
    try {
      def = JSON.parse(def);
    } catch {
      report.error('viewDefinition', 'viewDefinition is a string that does not parse as JSON');
      return;
    }
  }
  if (!isObject(def)) {
    report.error('viewDefinition', 'viewDefinition must be an object {defaultView?, views: [...]}');
    return;
  }
  if (!Array.isArray(def.views)) {
    report.error('viewDefinition.views', "'views' must be an array of views");
    return;
  }
  const ctx: ViewContext = {
    spec,
    viewIds: collectViewIds(def.views, report),
    fieldNames: fieldNames(spec),
    report,
  };
  checkViewNumbers(def, report);
  if (def.defaultView !== undefined && def.defaultView !== null) {
    checkViewRef(def.defaultView, 'viewDefinition.defaultView', 'defaultView', ctx);
  }
  def.views.forEach((view: unknown, i) => {
    if (isObject(view))
      checkComponents(view.components, `viewDefinition.views[${i}].components`, new Map(), ctx);
  });
}

function collectViewIds(views: unknown[], report: Report): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, string>();
  views.forEach((view, i) => {
    const loc = `viewDefinition.views[${i}]`;
    if (!isObject(view)) {
      report.error(loc, 'a view must be an object {id, label?, layout?, components}');
      return;
    }
    if (typeof view.id !== 'string' || view.id.trim() === '') {
      report.error(`${loc}.id`, "a view needs a non-blank 'id'");
      return;
    }
    checkUnique(seen, view.id, `${loc}.id`, 'view id', report);
    ids.add(view.id);
  });
  return ids;
}

function checkViewRef(value: unknown, location: string, field: string, ctx: ViewContext): void {
  if (typeof value === 'string' && ctx.viewIds.has(value)) return;
  const guess = typeof value === 'string' ? nearest(value, ctx.viewIds) : undefined;
  ctx.report.error(
    location,
    `${field} '${String(value)}' names no view; views: ${[...ctx.viewIds].join(', ') || '(none)'}${guess ? ` (did you mean '${guess}'?)` : ''}`,
  );
}

/** Checks a component list recursively; `seen` spans the whole view so nested ids must be unique too. */
function checkComponents(list: unknown, location: string, seen: Map<string, string>, ctx: ViewContext): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    ctx.report.error(location, "'components' must be an array");
    return;
  }
  list.forEach((c: unknown, j) => {
    const loc = `${location}[${j}]`;
    if (!isObject(c)) {
      ctx.report.error(loc, 'a component must be an object {id, type, …}');
      return;
    }
    if (typeof c.id !== 'string' || c.id.trim() === '')
      ctx.report.error(`${loc}.id`, "a component needs a non-blank 'id'");
    else checkUnique(seen, c.id, `${loc}.id`, 'component id in this view', ctx.report);
    checkComponentType(c.type, `${loc}.type`, ctx.report);
    if (c.itemView !== undefined && c.itemView !== null)
      checkViewRef(c.itemView, `${loc}.itemView`, 'itemView', ctx);
    lintComponent(c, loc, ctx);
    checkComponents(c.components, `${loc}.components`, seen, ctx);
  });
}

function checkComponentType(type: unknown, location: string, report: Report): void {
  if (typeof type !== 'string' || type.trim() === '') {
    report.error(location, "a component needs a 'type'");
  } else if (!isComponentType(type)) {
    const guess = nearest(type, COMPONENT_TYPES);
    report.error(location, `unknown component type '${type}'${guess ? `; did you mean '${guess}'?` : ''}`);
  }
}

/** Warnings only: binds to nothing, quoted plain text, `$`-less display text naming a field. */
function lintComponent(c: Record<string, unknown>, loc: string, ctx: ViewContext): void {
  checkPercentBinds(ctx.spec, c, loc, ctx.report);
  for (const field of ['bind', 'bindFrom', 'bindTo']) {
    const bind = c[field];
    if (typeof bind === 'string') lintBind(bind, `${loc}.${field}`, ctx);
  }
  for (const field of PLAIN_TEXT_FIELDS) {
    const text = c[field];
    if (typeof text === 'string' && /^\s*(['"]).*\1\s*$/s.test(text) && text.trim().length >= 2) {
      ctx.report.warn(
        `${loc}.${field}`,
        `'${field}' is plain text and never evaluated, so the quotes will show; write ${text.trim().slice(1, -1)} without them`,
      );
    }
  }
  for (const field of DISPLAY_EXPRESSION_FIELDS) {
    const text = c[field];
    if (typeof text === 'string' && !text.includes('$') && ctx.fieldNames.has(text.trim())) {
      ctx.report.warn(
        `${loc}.${field}`,
        `'${text}' has no '$', so it is shown literally rather than evaluated; to show the field write '$.${text.trim()}'`,
      );
    }
  }
}

function lintBind(bind: string, location: string, ctx: ViewContext): void {
  const parsed = parseAddress(bind);
  if (!parsed.ok) {
    ctx.report.warn(location, `bind ${parsed.message}`);
    return;
  }
  if (schemaDeclares(ctx.spec.schema, parsed.path) || derivationCovers(ctx.spec, parsed.path)) return;
  ctx.report.warn(
    location,
    `bind '${bind}' matches no schema field and no derivation (nor an effect status or result path)`,
  );
}

/** True when every step of the path is declared by the schema (`properties` / `items`, through `$ref`). */
function schemaDeclares(root: JsonObject, path: Path): boolean {
  let node = deref(root, root);
  for (const seg of path) {
    if (typeof seg === 'number' || seg === WILDCARD) {
      if (!isObject(node.items)) return false;
      node = deref(root, node.items);
    } else {
      const props = node.properties;
      if (!isObject(props) || !Object.prototype.hasOwnProperty.call(props, seg)) return false;
      node = deref(root, props[seg]);
    }
  }
  return true;
}

/**
 * A path the engine writes besides the base fields — a derivation target, an effect `statusPath` or a
 * `response.set` key — equal to the bind or an ancestor of it (a bind into a derived array, a status `phase`).
 */
function derivationCovers(spec: ModelSpec, path: Path): boolean {
  const written = [
    ...spec.derivations.map((d) => d.path),
    ...spec.effects.flatMap((e) => [
      ...(e.statusPath ? [e.statusPath] : []),
      ...Object.keys(e.response?.set ?? {}),
    ]),
  ];
  return written.some((address) => {
    const parsed = parseAddress(address);
    if (!parsed.ok || parsed.path.length > path.length) return false;
    return parsed.path.every(
      (s, i) => s === path[i] || s === WILDCARD || path[i] === WILDCARD || typeof path[i] === 'number',
    );
  });
}

/** Every property name in the schema plus every derivation's last name: what a bare field reference would name. */
function fieldNames(spec: ModelSpec): Set<string> {
  const out = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > 64) return;
    if (isObject(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        out.add(name);
        visit(sub, depth + 1);
      }
    }
    visit(node.items, depth + 1);
    if (isObject(node.$defs)) for (const sub of Object.values(node.$defs)) visit(sub, depth + 1);
  };
  visit(spec.schema, 0);
  for (const d of spec.derivations) {
    const parsed = parseAddress(d.path);
    const last = parsed.ok ? parsed.path[parsed.path.length - 1] : undefined;
    if (typeof last === 'string' && last !== WILDCARD) out.add(last);
  }
  return out;
}
