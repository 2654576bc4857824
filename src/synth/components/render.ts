/** Renderings of the component registry: descriptor JSON (§9.2), Markdown and plain text. */
import type { ComponentDescriptor } from './descriptor.js';
import { listComponents } from './registry.js';

/** Which components a listing shows: all (`full`) or only the Free ones (`free`, §10). */
export type ListingEdition = 'free' | 'full';

function descriptors(edition: ListingEdition = 'full'): ComponentDescriptor[] {
  return listComponents()
    .map((c) => c.descriptor)
    .filter((d) => edition === 'full' || d.edition === 'Free');
}

/** `{"edition", "totalCount", "components"}` as `list_components` returns it. */
export function componentsJson(edition: ListingEdition = 'full'): string {
  const components = descriptors(edition);
  return (
    JSON.stringify(
      { edition: edition === 'free' ? 'Free' : 'full', totalCount: components.length, components },
      null,
      2,
    ) + '\n'
  );
}

function paramSummary(d: ComponentDescriptor): string {
  return d.parameters
    .map((p) => {
      const aliases = p.aliases.length > 0 ? `[${p.aliases.join(',')}]` : '';
      const def = p.defaultValue !== null ? `=${p.defaultValue}` : '';
      const allowed = p.allowedValues.length > 0 ? ` {${p.allowedValues.join(',')}}` : '';
      return `${p.name}${p.required ? '*' : ''}${aliases}${def}${allowed}`;
    })
    .join('; ');
}

/** A Markdown reference: one table per category. */
export function componentsMarkdown(edition: ListingEdition = 'full'): string {
  const lines = [
    `# Synth components (${edition === 'free' ? 'Free' : 'Free and Pro'})`,
    '',
    'Notation: `name[aliases]=default {allowed}`, `*` = required.',
    '',
  ];
  for (const category of ['generator', 'filter'] as const) {
    lines.push(`## ${category === 'generator' ? 'Generators' : 'Filters'}`, '');
    lines.push('| Component | Inputs | Parameters | Output |', '|---|---|---|---|');
    for (const d of descriptors(edition).filter((x) => x.category === category)) {
      const cell = (s: string): string => s.replace(/\|/g, '\\|');
      lines.push(
        `| ${d.name} | ${cell(d.input)} | ${cell(paramSummary(d) || '—')} | ${cell(d.description)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** One line per component. */
export function componentsText(edition: ListingEdition = 'full'): string {
  return descriptors(edition)
    .map((d) => `${d.name.padEnd(20)} ${d.category.padEnd(9)} ${paramSummary(d) || '(no parameters)'}\n`)
    .join('');
}
