/**
 * PersonAssembler and Email. The person takes no draws of its own (verified by person-model); the
 * Email pattern and digit draws are our choice (docs/synth-draws.md).
 */
import { Row } from '../../../engine/row.js';
import type { Composite, RuntimeNode } from '../../../engine/row.js';
import { SynthError } from '../../../errors.js';
import type { BuildContext, ComponentImpl, LoadContext } from '../../component.js';
import { readModelFile } from '../../outside/flat-file.js';
import { byRole, composite, filterNode, proImpl } from '../../pro-nodes.js';
import { nodeTemplate } from '../../templates.js';

export const PERSON_FIELDS = ['gender', 'givenName', 'surname'];
export const EMAIL_FIELDS = ['localPart', 'domain'];

/** Name-based local-part patterns, in the catalog's order; `n` marks the two-digit number. */
export const EMAIL_PATTERNS: readonly ((g: string, s: string, n: string) => string)[] = [
  (g, s) => `${g}.${s}`,
  (g, s) => `${g.slice(0, 1)}${s}`,
  (g, s, n) => `${g}.${s}${n}`,
  (g, s, n) => `${g}${s}${n}`,
  (g, s) => `${g}${s.slice(0, 1)}`,
  (g, s) => `${s}${g.slice(0, 1)}`,
  (g, s) => `${g}_${s}`,
];
/** Patterns that append a number. */
const WITH_NUMBER = new Set([2, 3]);

/** Lower-case letters and digits only (accents dropped), as mail local parts want them. */
export function mailSafe(text: string): string {
  return text
    .normalize('NFD')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** Text of the first data point of an input row. */
function text(row: Row, i: number): string {
  return String(row.value(i));
}

export const PEOPLE_FILTERS: ComponentImpl[] = [
  proImpl('PersonAssembler', (ctx) => {
    const [genderGiven, surname] = byRole(ctx, [
      ['genderGiven', 'gendergiven'],
      ['surname'],
    ]) as RuntimeNode[];
    if (genderGiven!.dimension < 2)
      ctx.params.reject('the genderGiven input needs two columns (gender, givenName)');
    const template = nodeTemplate(ctx, 'person', PERSON_FIELDS, '{givenName} {surname}');
    const a = new Row(genderGiven!.dimension);
    const b = new Row(surname!.dimension);
    return filterNode(ctx, 1, (out, offset) => {
      genderGiven!.next(a, 0);
      surname!.next(b, 0);
      const fields = { gender: text(a, 0), givenName: text(a, 1), surname: text(b, 0) };
      out.setComposite(
        offset,
        composite(
          'Person',
          fields,
          template((n) => fields[n as keyof typeof fields]),
        ),
      );
    });
  }),
  {
    ...proImpl('Email', createEmail),
    // Random mode reads its word list in the load phase, through the file port and path policy.
    load: (ctx: LoadContext): unknown =>
      ctx.params.bool('nameBased') ? undefined : readModelFile(ctx, ctx.params.text('wordListFile') ?? ''),
  },
];

/** Email: name-based from a Person, or random from the word list read at load time. */
function createEmail(ctx: BuildContext): RuntimeNode {
  const nameBased = ctx.params.bool('nameBased');
  // Random mode needs only a domain; a name input, if wired, is ignored.
  const [name, domainNode] = nameBased
    ? (byRole(ctx, [['name'], ['domain']]) as RuntimeNode[])
    : [undefined, byRole(ctx, [['domain'], ['name']], 1)[0]];
  if (domainNode === undefined) return ctx.params.reject('needs a domain input');
  const template = nodeTemplate(ctx, 'email', EMAIL_FIELDS, '{localPart}@{domain}');
  let words: string[] = [];
  if (!nameBased) {
    const file = ctx.params.text('wordListFile')!;
    const list = ctx.outside as { text: string } | undefined;
    if (list === undefined)
      return ctx.params.reject(`the word list "${file}" was not loaded (no load phase ran)`);
    words = list.text
      .split(/\r?\n/)
      .filter((w) => !w.startsWith('#'))
      .map((w) => mailSafe(w))
      .filter((w) => w !== '');
    if (words.length === 0) ctx.params.reject(`word list "${file}" is empty`);
  }
  const nameRow = new Row(Math.max(1, name?.dimension ?? 1));
  const domainRow = new Row(domainNode.dimension);
  const { rng } = ctx;
  return filterNode(ctx, 1, (out, offset) => {
    let local: string;
    if (nameBased) {
      name!.next(nameRow, 0);
      const person: Composite | undefined = nameRow.composite(0);
      if (person?.type !== 'Person')
        throw new SynthError('SYNTH_RUNTIME', `Email "${ctx.name}": the name input must be a Person`);
      domainNode.next(domainRow, 0);
      const g = mailSafe(person.field('givenName') ?? '');
      const s = mailSafe(person.field('surname') ?? '');
      const pattern = rng.nextIntBetween(0, EMAIL_PATTERNS.length);
      const n = WITH_NUMBER.has(pattern) ? String(rng.nextIntBetween(10, 100)) : '';
      local = EMAIL_PATTERNS[pattern]!(g, s, n);
    } else {
      domainNode.next(domainRow, 0);
      local = words[rng.nextIntBetween(0, words.length)]! + rng.nextIntBetween(0, 1000);
    }
    const fields = { localPart: local, domain: String(domainRow.value(0)).trim().toLowerCase() };
    out.setComposite(
      offset,
      composite(
        'Email',
        fields,
        template((f) => fields[f as keyof typeof fields]),
      ),
    );
  });
}
