/** Computed values: shown with the "Why is this number?" popover (formula and inputs from the graph). */
import { useId, useState, type ReactNode } from 'react';
import { brief, formatOfValue } from './format';
import { concretize, nodeFor, valueAt, type Component } from './model';
import type { RenderContext } from './render-context';

/** A computed value with its "Why is this number?" popover (formula and inputs from the graph). */
export function Computed({ ctx, bind, children }: { ctx: RenderContext; bind: string; children: ReactNode }) {
  const node = nodeFor(ctx.card.graph, bind);
  const [open, setOpen] = useState(false);
  const id = useId();
  if (!node || node.kind !== 'DERIVED') return <>{children}</>;
  const inputs = ctx.card.graph.edges
    .filter((e) => e.to === node.key)
    .map((e) => {
      const path = concretize(e.from, bind);
      return {
        path,
        label: nodeFor(ctx.card.graph, path)?.label ?? path,
        value: valueAt(ctx.card.state, path),
      };
    });
  return (
    <span
      className="computed"
      tabIndex={0}
      aria-describedby={open ? id : undefined}
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
      onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      data-bind={bind}
    >
      {children}
      {open && (
        <span role="tooltip" id={id} className="why">
          <strong>Why is this number?</strong>
          <span className="why-label">{node.label}</span>
          <code className="why-formula">{node.expression}</code>
          {inputs.length > 0 && (
            <span className="why-inputs">
              {inputs.map((i) => (
                <span key={i.path}>
                  {i.label} = {brief(i.value, formatOfValue(ctx.card, i.path), i.path)}
                </span>
              ))}
            </span>
          )}
        </span>
      )}
    </span>
  );
}

/** A display component bound to a computed value gets the popover; an unbound one is shown as is. */
export function Display({ c, ctx, children }: { c: Component; ctx: RenderContext; children: ReactNode }) {
  return c.bind ? (
    <Computed ctx={ctx} bind={c.bind}>
      {children}
    </Computed>
  ) : (
    <>{children}</>
  );
}
