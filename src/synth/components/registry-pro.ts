/** The Pro components this build implements, registered next to the Free ones. */
import type { ComponentImpl } from './component.js';
import { COLLABORATION_WATCHER } from './filters/pro/collaborate.js';
import { COMPOSITE_FILTERS } from './filters/pro/composites.js';
import { CONTACT_FILTERS } from './filters/pro/contact.js';
import { FHIR_FILTERS } from './filters/pro/fhir.js';
import { NACHA_FILTERS } from './filters/pro/nacha.js';
import { IDENTIFIER_FILTERS } from './filters/pro/identifiers.js';
import { CREDIT_CARD } from './filters/pro/payment.js';
import { PEOPLE_FILTERS } from './filters/pro/people.js';
import { DATE_FILTERS } from './filters/pro/dates.js';
import { MISSING } from './filters/pro/missing.js';
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
  MISSING,
  COLLABORATION_WATCHER,
  ...PEOPLE_FILTERS,
  ...CONTACT_FILTERS,
  CREDIT_CARD,
  ...IDENTIFIER_FILTERS,
  ...COMPOSITE_FILTERS,
  ...FHIR_FILTERS,
  ...NACHA_FILTERS,
];
