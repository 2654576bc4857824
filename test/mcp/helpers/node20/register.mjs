// `node --import ./register.mjs …`: lets a program written for Node 22 that imports `globSync`
// from `fs` load on Node 20 (the conformance suite from 0.1.14 on does; it uses it only to read
// result folders). Other modules see `fs` unchanged.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
