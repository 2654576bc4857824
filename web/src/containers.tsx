/** Container and navigation renderers: groups, tabs, repeated sections and menus. */
import { useId, useState } from 'react';
import { Components } from './components';
import { type Component } from './model';
import { num, str, type RenderContext } from './render-context';

export function Container({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const children = (
    <Components list={c.components} ctx={ctx} layout={str(c.layout)} columns={num(c.columns)} />
  );
  switch (c.type) {
    case 'fieldSet':
      return (
        <fieldset className="group" data-component={c.id}>
          {(str(c.legend) ?? c.label) && <legend>{str(c.legend) ?? c.label}</legend>}
          {children}
        </fieldset>
      );
    case 'accordion':
    case 'collapsible':
      return (
        <details className="group" open={c.collapsed !== true} data-component={c.id}>
          <summary>{str(c.legend) ?? c.label ?? c.id}</summary>
          {children}
        </details>
      );
    case 'tabs':
      return <Tabs c={c} ctx={ctx} />;
    case 'toolbar':
    case 'buttonGroup':
      return (
        <div
          className="group row"
          role={c.type === 'toolbar' ? 'toolbar' : 'group'}
          aria-label={c.label}
          data-component={c.id}
        >
          {children}
        </div>
      );
    default:
      return (
        <section className={`group ${c.type}`} aria-label={str(c.legend) ?? c.label} data-component={c.id}>
          {(str(c.legend) ?? c.label) && <h3>{str(c.legend) ?? c.label}</h3>}
          {children}
        </section>
      );
  }
}

export function TabStrip({
  labels,
  active,
  onSelect,
  idBase,
}: {
  labels: string[];
  active: number;
  onSelect: (i: number) => void;
  idBase: string;
}) {
  return (
    <div role="tablist" className="tabs">
      {labels.map((label, i) => (
        <button
          key={i}
          type="button"
          role="tab"
          id={`${idBase}-tab-${i}`}
          aria-selected={i === active}
          aria-controls={`${idBase}-panel-${i}`}
          tabIndex={i === active ? 0 : -1}
          onClick={() => onSelect(i)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') onSelect((active + 1) % labels.length);
            if (e.key === 'ArrowLeft') onSelect((active - 1 + labels.length) % labels.length);
          }}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

export function Tabs({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const items = (c.components ?? []).filter((x) => x.visible !== false);
  const [active, setActive] = useState(0);
  const idBase = useId();
  const current = items[Math.min(active, items.length - 1)];
  return (
    <div data-component={c.id}>
      <TabStrip
        labels={items.map((i) => i.label ?? i.id)}
        active={active}
        onSelect={setActive}
        idBase={idBase}
      />
      {current && (
        <div role="tabpanel" id={`${idBase}-panel-${active}`} aria-labelledby={`${idBase}-tab-${active}`}>
          <Components list={current.components} ctx={ctx} layout={str(current.layout)} />
        </div>
      )}
    </div>
  );
}

export function SectionList({ c, ctx }: { c: Component; ctx: RenderContext }) {
  return (
    <section className="group section-list" aria-label={c.label} data-component={c.id}>
      {c.label && <h3>{c.label}</h3>}
      {(c.rows ?? []).map((row) => (
        <div
          className="section-row"
          key={row.index}
          role="group"
          aria-label={`${c.label ?? 'Row'} ${row.index + 1}`}
        >
          <Components
            list={row.components}
            ctx={ctx}
            layout={str(c.layout) ?? 'horizontal'}
            columns={num(c.columns)}
          />
        </div>
      ))}
      {(c.rows ?? []).length === 0 && <p className="muted">No rows.</p>}
    </section>
  );
}

export function Nav({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const items = Array.isArray(c.menuItems) ? (c.menuItems as Record<string, unknown>[]) : [];
  return (
    <nav aria-label={c.label ?? c.type} className={`menu ${str(c.orientation) ?? ''}`} data-component={c.id}>
      {items.map((m, i) => (
        <button
          key={i}
          type="button"
          onClick={() => typeof m.targetView === 'string' && ctx.navigate(m.targetView)}
        >
          {str(m.label) ?? str(m.targetView)}
        </button>
      ))}
    </nav>
  );
}
