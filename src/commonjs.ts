/**
 * The exports of a CommonJS package loaded with a dynamic `import()`. Node gives its named exports
 * beside `default` (the `module.exports` object); the esbuild bundle of the CLI gives only
 * `default`. Reading `default` when it is the exports object works in both, so a lazily loaded
 * CommonJS package never comes back without its functions in one of the two builds.
 */
export function commonJs<T extends object>(loaded: T): T {
  const exports = (loaded as { default?: unknown }).default;
  return exports !== null && (typeof exports === 'object' || typeof exports === 'function')
    ? (exports as T)
    : loaded;
}
