/** The Pro components this build implements, registered next to the Free ones. */
import type { ComponentImpl } from './component.js';
import { IDENTIFIER_GENERATORS } from './generators/pro/identifiers.js';
import { NETWORK_GENERATORS } from './generators/pro/network.js';

export const PRO_IMPLEMENTATIONS: readonly ComponentImpl[] = [
  ...IDENTIFIER_GENERATORS,
  ...NETWORK_GENERATORS,
];
