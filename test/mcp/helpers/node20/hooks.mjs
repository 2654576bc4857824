// Module resolve hook: `fs` and `node:fs` resolve to fs.mjs (node:fs plus a globSync), except
// for fs.mjs itself, which needs the real module.
const shim = new URL('./fs.mjs', import.meta.url).href;

export function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== shim)
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
