// Where the browser tests find Chromium: MODELWORKS_CHROMIUM names it (point it at a missing path to
// see the skip), else Debian's package. Without one the browser suites skip and say why.
import { existsSync } from 'node:fs';

const CANDIDATES = process.env.MODELWORKS_CHROMIUM
  ? [process.env.MODELWORKS_CHROMIUM]
  : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The browser's executable, or undefined when none is installed. */
export const CHROMIUM: string | undefined = CANDIDATES.find((p) => existsSync(p));

/** Why the browser suites skip, for their titles and a warning. */
export const CHROMIUM_SKIP_REASON = `no chromium at ${CANDIDATES.join(' or ')} (install Debian's chromium, or set MODELWORKS_CHROMIUM)`;

/** A suite title that says when and why it is skipped. */
export function browserSuite(title: string, file: string): string {
  if (CHROMIUM) return title;
  console.warn(`${file} skipped: ${CHROMIUM_SKIP_REASON}`);
  return `${title} (skipped: ${CHROMIUM_SKIP_REASON})`;
}
