/**
 * The domain-guidance catalogue: built-in topics, optionally extended or overridden (by id) from a
 * JSON file. An unreadable file leaves the built-ins in place and is reported once on stderr.
 */
import { readFileSync } from 'node:fs';
import { BUILTIN_GUIDANCE_TOPICS, type GuidanceTopic } from './topics.js';

interface TopicOverride {
  id: string;
  description?: string;
  instructions?: string;
  instructionLines?: string[];
}

/** Built-ins merged with the file's topics (same id replaces, new ids append in file order). */
export function loadGuidanceTopics(
  file: string | undefined,
  warn: (m: string) => void = () => {},
): GuidanceTopic[] {
  const topics = BUILTIN_GUIDANCE_TOPICS.map((t) => ({ ...t }));
  if (!file) return topics;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    warn(
      `domain guidance topics file ${file} is unreadable (${(err as Error).message}); using the built-in topics`,
    );
    return topics;
  }
  if (!Array.isArray(raw)) {
    warn(
      `domain guidance topics file ${file} must hold an array of {id, description, instructions}; using the built-in topics`,
    );
    return topics;
  }
  for (const entry of raw as TopicOverride[]) {
    if (!entry || typeof entry.id !== 'string') continue;
    const instructions =
      typeof entry.instructions === 'string'
        ? entry.instructions
        : Array.isArray(entry.instructionLines)
          ? entry.instructionLines.join('\n')
          : undefined;
    const at = topics.findIndex((t) => t.id.toLowerCase() === entry.id.toLowerCase());
    if (at >= 0) {
      const current = topics[at]!;
      topics[at] = {
        id: current.id,
        description: entry.description ?? current.description,
        instructions: instructions ?? current.instructions,
      };
    } else if (instructions !== undefined) {
      topics.push({ id: entry.id, description: entry.description ?? entry.id, instructions });
    }
  }
  return topics;
}

/** `get_domain_guidance`: the chosen topics' instructions, in catalogue order. */
export function domainGuidance(
  catalog: readonly GuidanceTopic[],
  requested: readonly string[],
): { topics: string[]; guidance: string } {
  const wanted = new Set(requested.map((t) => t.toLowerCase()));
  const chosen = catalog.filter((t) => wanted.has(t.id.toLowerCase()));
  if (chosen.length === 0) {
    return {
      topics: [...requested],
      guidance: `(none of [${requested.join(', ')}] is a known topic; valid: ${catalog.map((t) => t.id).join(', ')})`,
    };
  }
  return {
    topics: [...requested],
    guidance: chosen.map((t) => `## ${t.id}\n\n${t.instructions.trim()}`).join('\n\n'),
  };
}
