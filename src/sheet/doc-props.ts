/** The workbook's document properties (`docProps/`): when it was saved, what wrote it. */
import { scanXml } from './xml.js';

const decoder = new TextDecoder();

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

/**
 * The text of a small document-properties part's element: when the file was last saved
 * (`docProps/core.xml`'s `dcterms:modified`, TODAY's day: volatile.ts), the program that wrote it
 * (`docProps/app.xml`'s `Application`: cancellation.ts). Undefined when missing or malformed.
 */
export function elementText(
  path: string,
  bytes: Uint8Array | undefined,
  element: string,
): string | undefined {
  if (!bytes) return undefined;
  let inside = false;
  let text = '';
  try {
    scanXml(path, decoder.decode(bytes), {
      open: (name) => {
        if (name === element) inside = true;
      },
      close: (name) => {
        if (name === element) inside = false;
      },
      wantsText: () => inside,
      text: (t) => {
        text += t;
      },
    });
  } catch {
    // a malformed properties part only loses what it would have told
    return undefined;
  }
  const t = text.trim().slice(0, 200);
  return t === '' ? undefined : t;
}

/** When the file was last saved (ISO 8601) and the program that wrote it, where the parts say. */
export function documentProperties(part: (name: string) => Uint8Array | undefined): {
  savedAt?: string;
  writer?: string;
} {
  const saved = elementText('docProps/core.xml', part('docProps/core.xml'), 'modified');
  const writer = elementText('docProps/app.xml', part('docProps/app.xml'), 'Application');
  return {
    ...(saved !== undefined && ISO_TIME.test(saved) ? { savedAt: saved } : {}),
    ...(writer !== undefined ? { writer } : {}),
  };
}
