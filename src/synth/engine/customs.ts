/**
 * The load phase of custom components (`<custom name="T" class="path/to/t.mjs"/>`): the class is
 * an ES module file, accepted only inside the folders the operator allows (the custom component
 * folder allowlist, empty by default). A relative class is looked up under each allowed folder in
 * turn; an absolute one must resolve (symlinks followed) inside one. Every check runs before the
 * module port loads anything.
 */
import { isAbsolute, resolve } from 'node:path';
import { isInside } from '../access/paths.js';
import type { AccessPorts } from '../access/ports.js';
import type { ComponentImpl } from '../components/component.js';
import { customComponent } from '../components/custom.js';
import { findComponent, type ComponentLookup } from '../components/registry.js';
import { SynthError, plainMessage } from '../errors.js';
import type { SynthModel } from '../model/types.js';

/** The setting an operator changes to allow a folder (named in refusals). */
export const CUSTOM_SETTING = 'MODELWORKS_SYNTH_CUSTOM_COMPONENT_DIR_ALLOWLIST (customComponentDirAllowlist)';

function refuse(what: string, why: string): never {
  throw new SynthError('SYNTH_LOAD', `${what}: ${why}`);
}

/** The canonical path of a custom component's module, after the folder policy. */
export function resolveCustomModule(
  what: string,
  className: string,
  dirs: readonly string[],
  ports: AccessPorts,
): string {
  if (!/\.m?js$/.test(className) || className.includes('\0'))
    refuse(what, `class "${className}" must name an ES module file (.mjs or .js)`);
  const files = ports.files;
  if (files === undefined || ports.modules === undefined)
    refuse(what, 'custom components need the file and module ports (none were given to this run)');
  const allowed = dirs
    .filter((d) => isAbsolute(d))
    .map((d) => files.realpath(d))
    .filter((d): d is string => d !== undefined);
  if (allowed.length === 0) refuse(what, `no folder is allowed for custom components; set ${CUSTOM_SETTING}`);
  const candidates = isAbsolute(className) ? [className] : allowed.map((d) => resolve(d, className));
  for (const candidate of candidates) {
    const real = files.realpath(candidate);
    if (real === undefined) continue;
    if (allowed.some((d) => isInside(real, d))) return real;
    refuse(what, `${className} is outside the allowed custom component folders (${CUSTOM_SETTING})`);
  }
  return refuse(what, `module not found: ${className} (looked in ${allowed.join(', ')})`);
}

/**
 * Loads every `<custom>` binding of a model, keyed by lower-cased name.
 * @throws SynthError SYNTH_LOAD on a refused, missing or malformed module
 */
export async function loadCustoms(
  model: SynthModel,
  dirs: readonly string[],
  ports: AccessPorts,
  builtIns: ComponentLookup = findComponent,
): Promise<Map<string, ComponentImpl>> {
  const customs = new Map<string, ComponentImpl>();
  for (const { name, className } of model.customs) {
    const what = `custom "${name}"`;
    if (!/^[A-Za-z]\w*$/.test(name)) refuse(what, 'the name must be letters, digits and _');
    if (builtIns(name) !== undefined) refuse(what, `the name would hide the built-in ${name}`);
    if (customs.has(name.toLowerCase())) refuse(what, 'defined twice');
    const path = resolveCustomModule(what, className, dirs, ports);
    let module: unknown;
    try {
      module = await ports.modules!.load(path);
    } catch (err) {
      refuse(what, `${path} could not be loaded: ${plainMessage(err, 'the module failed to evaluate')}`);
    }
    customs.set(name.toLowerCase(), customComponent(name, className, module));
  }
  return customs;
}
