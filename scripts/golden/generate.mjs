// Regenerates test/golden/jdk-vectors.json from a JDK 19+ (Double.toString is shortest-digit from
// JDK 19 on; the random streams are the same from JDK 17 on). Not part of the build or the tests:
// run it by hand when a vector must be added, and say so in the commit.
//   node scripts/golden/generate.mjs [path/to/jdk/bin]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const bin = process.argv[2] ?? (process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin') : '');
const tool = (name) => (bin === '' ? name : join(bin, name));

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    console.error(`${cmd} ${args.join(' ')} failed:\n${r.stderr ?? r.error}`);
    process.exit(1);
  }
  return r;
}

const version = run(tool('java'), ['-version']).stderr.split('\n')[0];
const major = Number(/version "(\d+)/.exec(version)?.[1] ?? 0);
if (major < 19) {
  console.error(`need a JDK 19+ (shortest-digit Double.toString); found: ${version}`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'golden-'));
try {
  run(tool('javac'), ['-d', work, join(root, 'scripts', 'golden', 'GoldenVectors.java')]);
  const out = run(tool('java'), ['-cp', work, 'GoldenVectors']).stdout;
  const target = join(root, 'test', 'golden', 'jdk-vectors.json');
  writeFileSync(target, JSON.stringify(JSON.parse(out)) + '\n');
  run(join(root, 'node_modules', '.bin', 'prettier'), ['--write', target]);
  console.log(`wrote ${target} with ${version}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
