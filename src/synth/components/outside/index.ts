/** Components that read outside data through the access ports, plus Import. */
import type { ComponentImpl } from '../component.js';
import { DATABASE } from './database.js';
import { FLAT_FILE } from './flat-file.js';
import { IMPORT } from './import.js';
import { SERVICE_CALL } from './service-call.js';

export const OUTSIDE_COMPONENTS: readonly ComponentImpl[] = [DATABASE, FLAT_FILE, IMPORT, SERVICE_CALL];
