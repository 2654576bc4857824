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

/** Newlines in `text` from `from` to `to`. */
function newlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A tag longer than this that has not ended is broken, not cut by a chunk's end. */
const MAX_PENDING_TAG = 64 * 1024;

/**
 * Scans the text of a part as it arrives, chunk by chunk (`push`, then `end`): what is complete is
 * passed to the reader and let go; an element, comment or text cut by a chunk's end waits for the
 * next chunk. A worksheet is read without its whole text in memory at once.
 */
export class XmlScanner {
  private buf = '';
  private readonly stack: string[] = [];
  private rooted = false;
  /** Lines of the text already let go, for messages. */
  private lines = 0;

  constructor(
    private readonly part: string,
    private readonly reader: XmlReader,
  ) {}

  push(chunk: string): void {
    this.buf = this.buf === '' ? chunk : this.buf + chunk;
    this.scan(false);
  }

  end(): void {
    this.scan(true);
    const { stack } = this;
    if (stack.length > 0)
      this.malformed(this.buf.length, `the text ends inside <${stack[stack.length - 1]}>`);
    if (!this.rooted) this.malformed(0, 'no root element');
  }

  private malformed(offset: number, what: string): never {
    const line = this.lines + 1 + newlines(this.buf, 0, offset);
    throw new SheetError('PARSE_FAILED', `${this.part} is not well-formed XML (${what}, line ${line})`);
  }

  /** Lets go of the text before `pos`. */
  private drop(pos: number): void {
    if (pos === 0) return;
    this.lines += newlines(this.buf, 0, pos);
    this.buf = this.buf.slice(pos);
  }

  private text(raw: string): void {
    if (this.stack.length > 0 && this.reader.wantsText()) this.reader.text(decodeXmlText(this.part, raw));
  }

  /** Scans what is complete; `final` when no more text comes. */
  private scan(final: boolean): void {
    const xml = this.buf;
    const { reader, stack } = this;
    let pos = 0;
    while (pos < xml.length) {
      const lt = xml.indexOf('<', pos);
      if (lt < 0) {
        // text runs to the end: it may go on in the next chunk (an entity cut in two)
        if (final) this.text(xml.slice(pos));
        if (final) pos = xml.length;
        break;
      }
      if (lt > pos) this.text(xml.slice(pos, lt));
      pos = lt;
      const wait = (): boolean => !final;
      if (lt + 9 > xml.length && wait()) break;
      const next = xml.charCodeAt(lt + 1);
      if (next === 0x3f /* ? */) {
        const close = xml.indexOf('?>', lt + 2);
        if (close < 0 && wait()) break;
        if (close < 0) this.malformed(lt, 'an unterminated processing instruction');
        pos = close + 2;
        continue;
      }
      if (next === 0x21 /* ! */) {
        if (xml.startsWith('<!--', lt)) {
          const close = xml.indexOf('-->', lt + 4);
          if (close < 0 && wait()) break;
          if (close < 0) this.malformed(lt, 'an unterminated comment');
          pos = close + 3;
          continue;
        }
        if (xml.startsWith('<![CDATA[', lt)) {
          const close = xml.indexOf(']]>', lt + 9);
          if (close < 0 && wait()) break;
          if (close < 0) this.malformed(lt, 'an unterminated CDATA section');
          if (stack.length > 0 && reader.wantsText()) reader.text(xml.slice(lt + 9, close));
          pos = close + 3;
          continue;
        }
        if (/^<!DOCTYPE/i.test(xml.slice(lt, lt + 9))) {
          throw new SheetError(
            'PARSE_FAILED',
            `${this.part} declares a DOCTYPE, which an .xlsx part never does`,
          );
        }
        this.malformed(lt, "a '<!' that is neither a comment nor CDATA");
      }
      TAG.lastIndex = lt;
      const m = TAG.exec(xml);
      if (!m) {
        if (wait() && xml.length - lt < MAX_PENDING_TAG) break;
        this.malformed(lt, `a broken tag at '${xml.slice(lt, lt + 20)}'`);
      }
      pos = TAG.lastIndex;
      this.element(m, lt);
    }
    this.drop(pos);
  }

  private element(m: RegExpExecArray, lt: number): void {
    const { reader, stack } = this;
    const name = localName(m[2]!);
    const rest = m[3]!;
    if (m[1] === '/') {
      if (rest.trim() !== '') this.malformed(lt, `attributes on the end tag </${m[2]}>`);
      const top = stack.pop();
      if (top !== name)
        this.malformed(lt, top === undefined ? `</${m[2]}> closes nothing` : `</${m[2]}> closes <${top}>`);
      reader.close(name, stack[stack.length - 1]);
      return;
    }
    if (stack.length === 0) {
      if (this.rooted) this.malformed(lt, 'a second root element');
      this.rooted = true;
    }
    const selfClosing = rest.endsWith('/');
    const attrText = selfClosing ? rest.slice(0, -1) : rest;
    const parent = stack[stack.length - 1];
    const part = this.part;
    reader.open(name, () => attributes(part, attrText), parent);
    if (selfClosing) reader.close(name, parent);
    else stack.push(name);
  }
}

/** Scans `xml` (the whole text of `part`), calling `reader` for each element; throws PARSE_FAILED. */
export function scanXml(part: string, xml: string, reader: XmlReader): void {
  const scanner = new XmlScanner(part, reader);
  scanner.push(xml);
  scanner.end();
}
