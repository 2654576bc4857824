/** The one Store contract, run unchanged against every backend (issue 4, acceptance 1). */
import { MemoryStore } from '../../src/store/memory-store.js';
import {
  describeStore,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  postgresOpener,
  sqliteOpener,
} from './helpers.js';

describeStore('memory', () => Promise.resolve(new MemoryStore()));
describeStore('sqlite', sqliteOpener());
describeStore('postgres', POSTGRES_URL ? postgresOpener() : undefined, POSTGRES_SKIP_REASON);
