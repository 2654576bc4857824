/**
 * Runs around every test file of the suite: after each test (and after the file's own teardown)
 * Object.prototype and Array.prototype must have exactly the properties they had when the file
 * started. An added property fails the test, named, and is removed so what follows starts clean.
 * A polluted prototype is how one hostile request reaches every object of a shared server, so no
 * test may leave one behind, whatever it exercises.
 */
import { afterAll, afterEach } from 'vitest';

const watched = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
] as const;

const baseline = watched.map(([, target]) => new Set(Reflect.ownKeys(target)));

function removeAdditions(): string[] {
  const added: string[] = [];
  watched.forEach(([name, target], i) => {
    for (const key of Reflect.ownKeys(target)) {
      if (baseline[i]!.has(key)) continue;
      added.push(`${name}.${String(key)}`);
      delete (target as Record<string | symbol, unknown>)[key];
    }
  });
  return added;
}

function check(): void {
  const added = removeAdditions();
  if (added.length > 0) throw new Error(`a shared prototype was polluted: ${added.join(', ')}`);
}

afterEach(check);
afterAll(check);
