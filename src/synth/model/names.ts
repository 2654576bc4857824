/**
 * Names a model supplies (node names, attribute names, declare names, …) are data. They become
 * keys of plain objects in a few places, where `__proto__` would reach the object's prototype
 * instead of making a property; so it is refused wherever it appears, saying where. Every other
 * name, `constructor` and `prototype` included, is an ordinary name.
 */
import { SynthError } from '../errors.js';
import type { SynthModel } from './types.js';

/** The one name a model may not use. */
export const FORBIDDEN_NAME = '__proto__';

/**
 * Refuses `__proto__`.
 * @param where what the name is, e.g. `attribute name of node "A"`
 * @throws SynthError SYNTH_PARSE
 */
export function checkName(name: string, where: string): void {
  if (name === FORBIDDEN_NAME)
    throw new SynthError('SYNTH_PARSE', `${where}: "${FORBIDDEN_NAME}" is not allowed as a name`);
}

/** Sets `key` as an own property of `record` (after checkName). */
export function setOwn(record: Record<string, string>, key: string, value: string, where: string): void {
  checkName(key, where);
  record[key] = value;
}

/** Checks every name a parsed model holds (its attribute names are checked as they are read). */
export function checkModelNames(model: SynthModel): void {
  checkName(model.root, 'the root node');
  model.declares.forEach((d, i) => checkName(d.name, `declare ${i + 1}`));
  model.customs.forEach((c, i) => checkName(c.name, `custom ${i + 1}`));
  for (const [key] of model.analysis) checkName(key, 'an analysis setting');
  model.nodes.forEach((node, i) => {
    checkName(node.name, `node ${i + 1} (${node.type}): its name`);
    checkName(node.type, `node ${i + 1} ("${node.name}"): its type`);
    for (const key of Object.keys(node.attributes)) checkName(key, `node "${node.name}": an attribute`);
    node.inputs.forEach((input, j) => {
      checkName(input.name, `node "${node.name}": input ${j + 1}`);
      for (const key of Object.keys(input.attributes))
        checkName(key, `input "${input.name}" of node "${node.name}": an attribute`);
    });
  });
}
