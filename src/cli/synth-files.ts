/** node:fs adapters for the synth engine's file ports (the engine itself never touches the disk). */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { CorpusFiles } from '../synth/index.js';

/** A read-only corpus rooted at `root`; hidden entries and node_modules are not listed. */
export function corpusFromDirectory(root: string): CorpusFiles {
  return {
    list(): string[] {
      const out: string[] = [];
      if (!existsSync(root)) return out;
      const walk = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
          const full = join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.isFile()) out.push(relative(root, full).split(sep).join('/'));
        }
      };
      walk(root);
      return out;
    },
    read(path: string): string | undefined {
      const full = join(root, path);
      return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
    },
  };
}
