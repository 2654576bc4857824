/** The component registry: every implemented component by (case-insensitive) name. */
import type { ComponentImpl } from './component.js';
import { BASIC_FILTERS } from './filters/basic.js';
import { CHOICE_FILTERS } from './filters/choice.js';
import { COPULA } from './filters/copula.js';
import { CONTINUOUS } from './generators/continuous.js';
import { DETERMINISTIC } from './generators/deterministic.js';
import { DISCRETE } from './generators/discrete.js';
import { MULTIVARIATE } from './generators/multivariate.js';
import { OUTSIDE_COMPONENTS } from './outside/index.js';
import { mixtureComponent } from './generators/pro/mixture.js';
import { PRO_IMPLEMENTATIONS } from './registry-pro.js';

const ALL: readonly ComponentImpl[] = [
  ...CONTINUOUS,
  ...DISCRETE,
  ...MULTIVARIATE,
  ...DETERMINISTIC,
  ...BASIC_FILTERS,
  ...CHOICE_FILTERS,
  COPULA,
  ...OUTSIDE_COMPONENTS,
  ...PRO_IMPLEMENTATIONS,
  mixtureComponent((type) => findComponent(type)),
];

const BY_NAME = new Map(ALL.map((c) => [c.descriptor.name.toLowerCase(), c]));

/** The implementation of a component type, or undefined. */
export function findComponent(type: string): ComponentImpl | undefined {
  return BY_NAME.get(type.toLowerCase());
}

/** Resolves a node type: a model's custom components first, then the built-in ones. */
export type ComponentLookup = (type: string) => ComponentImpl | undefined;

/**
 * The lookup of a model whose custom components (keyed by lower-cased name) are `customs`, over
 * `base` (the built-in registry unless a caller, such as a test, passes its own).
 */
export function lookupWith(
  customs?: ReadonlyMap<string, ComponentImpl>,
  base: ComponentLookup = findComponent,
): ComponentLookup {
  if (customs === undefined || customs.size === 0) return base;
  return (type) => customs.get(type.toLowerCase()) ?? base(type);
}

/** All implemented components in catalog order. */
export function listComponents(): readonly ComponentImpl[] {
  return ALL;
}
