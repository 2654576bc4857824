/**
 * list_components: the build's catalogue for the service's edition, then the custom components
 * models on this server have loaded (the most recent MAX_LISTED_CUSTOMS), filtered on request.
 */
import {
  type ComponentDescriptor,
  type ComponentImpl,
  type Edition,
  componentsJson,
} from '../synth/index.js';
import type { ComponentList } from './synth-service-api.js';
import { SynthServiceError } from './synth-errors.js';

/** How many loaded custom components list_components remembers (the most recently loaded). */
const MAX_LISTED_CUSTOMS = 64;

export class ComponentListing {
  private catalogue: ComponentList | undefined;
  /** Custom components loaded by models on this server, by lower-cased name, oldest first. */
  private readonly loadedCustoms = new Map<string, ComponentDescriptor & { custom: true }>();

  constructor(private readonly edition: () => Edition) {}

  /** The component list, whole or filtered by `name` or `category` (not both). */
  list(filter: { name?: unknown; category?: unknown } = {}): ComponentList {
    this.catalogue ??= JSON.parse(componentsJson(this.edition())) as ComponentList;
    const components = [...this.catalogue.components, ...this.loadedCustoms.values()];
    const all = { edition: this.catalogue.edition, totalCount: components.length, components };
    const { name, category } = filter;
    if (name !== undefined && category !== undefined)
      throw new SynthServiceError('BAD_REQUEST', 'give name or category, not both');
    if (name !== undefined) {
      if (typeof name !== 'string' || name === '')
        throw new SynthServiceError('BAD_REQUEST', 'name must be a non-empty string');
      const found = all.components.filter((c) => c.name.toLowerCase() === name.toLowerCase());
      if (found.length === 0)
        throw new SynthServiceError('COMPONENT_NOT_FOUND', `unknown component '${name}'`, { name });
      return { edition: all.edition, totalCount: found.length, components: found };
    }
    if (category !== undefined) {
      if (category !== 'generator' && category !== 'filter')
        throw new SynthServiceError(
          'BAD_REQUEST',
          `category must be generator or filter (got ${JSON.stringify(category)})`,
        );
      const found = all.components.filter((c) => c.category === category);
      return { edition: all.edition, totalCount: found.length, components: found };
    }
    return all;
  }

  /** A custom component appears in the list once a model has loaded it (newest kept). */
  remember(customs: ReadonlyMap<string, ComponentImpl>): void {
    for (const [key, impl] of customs) {
      this.loadedCustoms.delete(key);
      this.loadedCustoms.set(key, { ...impl.descriptor, custom: true });
    }
    for (const key of this.loadedCustoms.keys()) {
      if (this.loadedCustoms.size <= MAX_LISTED_CUSTOMS) break;
      this.loadedCustoms.delete(key);
    }
  }
}
