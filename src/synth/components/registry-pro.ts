/** The Pro components this build implements, registered next to the Free ones. */
import type { ComponentImpl } from './component.js';
import { COLLABORATION_WATCHER } from './filters/pro/collaborate.js';
import { DATE_FILTERS } from './filters/pro/dates.js';
import { PERTURB } from './filters/pro/perturb.js';
import { COLLABORATE_GENERATORS } from './generators/pro/collaborate.js';
import { IDENTIFIER_GENERATORS } from './generators/pro/identifiers.js';
import { NETWORK_GENERATORS } from './generators/pro/network.js';

export const PRO_IMPLEMENTATIONS: readonly ComponentImpl[] = [
  ...IDENTIFIER_GENERATORS,
  ...NETWORK_GENERATORS,
  ...COLLABORATE_GENERATORS,
  ...DATE_FILTERS,
  PERTURB,
  COLLABORATION_WATCHER,
];
