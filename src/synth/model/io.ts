/** Reading and writing models in any of the three syntaxes; the text decides the syntax on read. */
import { SynthError } from '../errors.js';
import { parseJsonModel, writeJsonModel } from './json.js';
import { parseSgmModel, writeSgmModel, type DescriptorLookup } from './sgm.js';
import type { ModelFormat, SynthModel } from './types.js';
import { parseXmlModel, writeXmlModel } from './xml.js';

/** Recognises the syntax from the text itself: `<` is XML, `{` is JSON, anything else `.sgm`. */
export function sniffFormat(text: string): ModelFormat {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) return 'xml';
  if (start.startsWith('{')) return 'json';
  return 'sgm';
}

/** The format a file name asks for when writing, or undefined for an unknown extension. */
export function formatForPath(path: string): ModelFormat | undefined {
  const m = /\.(xml|json|sgm)$/i.exec(path);
  return m === null ? undefined : (m[1]!.toLowerCase() as ModelFormat);
}

/**
 * Parses model text of any syntax; `describe` names the parameters that `.sgm` positional
 * arguments fill (default: the component catalog).
 * @throws SynthError SYNTH_PARSE when the text is not a well-formed model
 */
export function parseModel(text: string, describe?: DescriptorLookup): SynthModel {
  const clean = text.replace(/^\uFEFF/, '');
  switch (sniffFormat(clean)) {
    case 'xml':
      return parseXmlModel(clean);
    case 'json':
      return parseJsonModel(clean);
    case 'sgm':
      return parseSgmModel(clean, describe);
  }
}

/** Serialises a model in the given syntax. */
export function writeModel(model: SynthModel, format: ModelFormat): string {
  switch (format) {
    case 'xml':
      return writeXmlModel(model);
    case 'json':
      return writeJsonModel(model);
    case 'sgm':
      return writeSgmModel(model);
    default:
      throw new SynthError('SYNTH_PARSE', `unknown model format "${String(format)}"`);
  }
}
