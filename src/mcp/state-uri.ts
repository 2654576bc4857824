/** A model's live state as a resource URI (resources.ts; server.ts watches it without loading the resources). */
/** The model id of a `valem://state/{id}` URI (undefined for anything else, or a malformed escape). */
export function stateModelId(uri: string): string | undefined {
  const m = /^valem:\/\/state\/(.+)$/.exec(uri);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}
