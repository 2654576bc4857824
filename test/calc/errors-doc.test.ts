import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { CALC_ERROR_CODES } from '../../src/calc/index.js';

const doc = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../docs/errors.md'), 'utf8');

it.each(Object.entries(CALC_ERROR_CODES))(
  'docs/errors.md documents %s with its status',
  (code, { status }) => {
    expect(doc).toMatch(new RegExp(`\\| \`${code}\` +\\| ${status} +\\|`));
  },
);
