/**
 * One forward pass over the XML of an .xlsx part, without building a tree: the reader is told of
 * each element as it opens and closes and asks only for the text it keeps. A worksheet of a
 * million cells costs its cells, not a million-node document. Nesting is checked as it goes, so
 * a part that is not well-formed is refused with the part's name and the place.
 */
import { SheetError } from './errors.js';

export interface XmlReader {
  /** An element opens (`name` without its namespace prefix); `attrs` reads its attributes. */
  open(name: string, attrs: () => Record<string, string>, parent: string | undefined): void;
  /** The element closes (also right after `open` for `<x/>`). */
  close(name: string, parent: string | undefined): void;
  /** Whether the text at the current place is kept: only then is it decoded and passed to `text`. */
  wantsText(): boolean;
  text(text: string): void;
}

// an element tag; attribute values may hold '>' inside quotes, a bare '<' ends the match (not well-formed)
const TAG = /<(\/?)([A-Za-z_][\w.:-]*)((?:[^<>"']|"[^"]*"|'[^']*')*)>/y;
const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#(\d{1,7})|#x([0-9A-Fa-f]{1,6}));/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

const localName = (name: string): string => name.slice(name.lastIndexOf(':') + 1);

/** Text with the XML entities replaced; a character reference to no character is refused. */
export function decodeXmlText(part: string, raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(
    ENTITY,
    (_m, named: string | undefined, dec: string | undefined, hex: string | undefined) => {
      if (named !== undefined) return NAMED[named]!;
      const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        throw new SheetError('PARSE_FAILED', `${part} refers to character ${code}, which does not exist`);
      }
      return String.fromCodePoint(code);
    },
  );
}

function attributes(part: string, text: string): Record<string, string> {
  // a null-prototype record: attribute names come from the file
  const out = Object.create(null) as Record<string, string>;
  for (const m of text.matchAll(ATTR)) out[localName(m[1]!)] = decodeXmlText(part, m[2] ?? m[3] ?? '');
  return out;
}

/** Where in the part an offset lies, for messages. */
function place(xml: string, offset: number): string {
  let line = 1;
  for (let i = xml.indexOf('\n'); i >= 0 && i < offset; i = xml.indexOf('\n', i + 1)) line++;
  return `line ${line}`;
}

/** Scans `xml` (the text of `part`), calling `reader` for each element; throws PARSE_FAILED. */
export function scanXml(part: string, xml: string, reader: XmlReader): void {
  const malformed = (offset: number, what: string): never => {
    throw new SheetError('PARSE_FAILED', `${part} is not well-formed XML (${what}, ${place(xml, offset)})`);
  };
  const stack: string[] = [];
  let rooted = false;
  let pos = 0;
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    const end = lt < 0 ? xml.length : lt;
    if (end > pos && stack.length > 0 && reader.wantsText())
      reader.text(decodeXmlText(part, xml.slice(pos, end)));
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      const close = xml.indexOf('?>', lt + 2);
      if (close < 0) malformed(lt, 'an unterminated processing instruction');
      pos = close + 2;
      continue;
    }
    if (next === 0x21 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const close = xml.indexOf('-->', lt + 4);
        if (close < 0) malformed(lt, 'an unterminated comment');
        pos = close + 3;
        continue;
      }
      if (xml.startsWith('<![CDATA[', lt)) {
        const close = xml.indexOf(']]>', lt + 9);
        if (close < 0) malformed(lt, 'an unterminated CDATA section');
        if (stack.length > 0 && reader.wantsText()) reader.text(xml.slice(lt + 9, close));
        pos = close + 3;
        continue;
      }
      if (/^<!DOCTYPE/i.test(xml.slice(lt, lt + 9))) {
        throw new SheetError('PARSE_FAILED', `${part} declares a DOCTYPE, which an .xlsx part never does`);
      }
      malformed(lt, "a '<!' that is neither a comment nor CDATA");
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(xml);
    if (!m) return malformed(lt, `a broken tag at '${xml.slice(lt, lt + 20)}'`);
    pos = TAG.lastIndex;
    const name = localName(m[2]!);
    const rest = m[3]!;
    if (m[1] === '/') {
      if (rest.trim() !== '') malformed(lt, `attributes on the end tag </${m[2]}>`);
      const top = stack.pop();
      if (top !== name)
        malformed(lt, top === undefined ? `</${m[2]}> closes nothing` : `</${m[2]}> closes <${top}>`);
      reader.close(name, stack[stack.length - 1]);
      continue;
    }
    if (stack.length === 0) {
      if (rooted) malformed(lt, 'a second root element');
      rooted = true;
    }
    const selfClosing = rest.endsWith('/');
    const attrText = selfClosing ? rest.slice(0, -1) : rest;
    const parent = stack[stack.length - 1];
    reader.open(name, () => attributes(part, attrText), parent);
    if (selfClosing) reader.close(name, parent);
    else stack.push(name);
  }
  if (stack.length > 0) malformed(xml.length, `the text ends inside <${stack[stack.length - 1]}>`);
  if (!rooted) malformed(0, 'no root element');
}
