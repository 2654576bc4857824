/**
 * The product's one error catalogue: every stable error code of every engine and surface, the HTTP
 * status it answers with and a one-line summary. Engines keep their own codes (CalcError,
 * SynthError, SheetError, ...); this table decides statuses, so a code means the same thing on
 * every surface (BUSY is one status for calc and synth; a bad spec and a bad synth model share a
 * class). docs/errors.md documents every entry; test/errors/catalogue.test.ts collects the codes
 * from the source and checks both. Imports nothing, so any layer may read it.
 */

export interface CatalogueEntry {
  readonly status: number;
  readonly summary: string;
}

const entry = (status: number, summary: string): CatalogueEntry => ({ status, summary });

export const ERROR_CATALOGUE = {
  // calc engine (CalcError)
  SPEC_INVALID: entry(422, 'the spec failed validation or does not compile'),
  TEMPLATE_UNRESOLVED: entry(422, "a branch's template ref resolves to no stored model"),
  TEMPLATE_CYCLE: entry(422, 'the template chain meets a model twice'),
  LINK_TARGET_UNRESOLVED: entry(422, "a link's target is not a stored model"),
  LINK_CYCLE_UNGUARDED: entry(422, 'a link on a cycle lacks statusPath or dedupeKey'),
  MODEL_NOT_FOUND: entry(404, 'no model with that id'),
  MODEL_EXISTS: entry(409, 'a model with that id already exists'),
  PATH_NOT_FOUND: entry(404, 'nothing at that address'),
  SCHEMA_VIOLATION: entry(422, 'a written value breaks the effective schema'),
  CONSTRAINT_VIOLATION: entry(409, 'a rollback constraint refused the cycle'),
  DERIVED_TARGET_WRITE: entry(400, 'a mutation wrote a derived field'),
  INDEX_LIMIT: entry(422, 'an array index beyond the limit'),
  INVALID_PATCH: entry(422, 'a JSON Patch that cannot be applied'),
  INVALID_ARGUMENT: entry(400, 'a malformed argument'),
  VERSION_CONFLICT: entry(409, 'expectedVersion or expectedRevision is not the live one'),
  EVOLUTION_INVALID: entry(422, 'the evolved spec is invalid or strands live values'),
  SNAPSHOT_MODEL_MISMATCH: entry(409, 'a snapshot of another model (restore refused)'),
  IDEMPOTENCY_KEY_REUSED: entry(422, 'an idempotency key reused with a different request'),
  HISTORY_NOT_FOUND: entry(404, 'no history entry at or before that time'),
  VIEW_NOT_FOUND: entry(404, 'no such view'),
  LIBRARY_NOT_FOUND: entry(404, 'the model has no library'),
  BUSY: entry(429, 'a queue or a count is full: retry later'),
  BLOB_TOO_LARGE: entry(413, 'a blob over the size limit or the memory budget'),
  BLOB_NOT_FOUND: entry(404, 'no blob with that id (or not referenced by the model)'),
  STORE_FAILURE: entry(500, 'the store could not complete the operation'),
  SOLVE_NOT_AN_INPUT: entry(400, 'solve was asked to vary a computed or read-only field'),
  SOLVE_BAD_BOUNDS: entry(400, 'a varied input has bounds or a step that leave nothing to try'),
  SOLVE_NOT_NUMERIC: entry(422, 'a varied input, target or objective is not a number'),

  // synth engine (SynthError); the Service and tools answer MODEL_INVALID / GENERATION_FAILED
  SYNTH_PARSE: entry(422, 'the model text is not a well-formed model'),
  SYNTH_LOAD: entry(422, 'a well-formed model that cannot be loaded'),
  SYNTH_LICENSE: entry(422, 'the model needs the Pro edition'),
  SYNTH_INVALID: entry(422, 'a structural or per-node validation failure'),
  SYNTH_RUNTIME: entry(422, 'generation failed'),
  SYNTH_LIMIT: entry(413, 'a row, or the rows a graph holds, passed the size budget its caller set'),
  COMPARE_INPUT: entry(422, 'data sets that cannot be compared'),
  COMPARE_LIMIT: entry(413, 'a comparison over its budget'),
  FIT_INPUT: entry(422, 'data a model cannot be fitted to'),
  FIT_LIMIT: entry(413, 'a fit over its budget'),
  SINK_TARGET: entry(422, 'an output target that cannot be used'),
  SINK_TYPE: entry(422, 'a value the output target cannot store'),
  SINK_WRITE: entry(502, 'the output target refused or failed a write'),

  // synth Service and tools (SynthServiceError)
  BAD_REQUEST: entry(400, 'malformed arguments'),
  MODEL_INVALID: entry(422, 'the model text does not parse, load or validate'),
  GENERATION_NOT_FOUND: entry(404, 'unknown or evicted generation'),
  COMPONENT_NOT_FOUND: entry(404, 'no component by that name'),
  TOO_LARGE: entry(413, 'over a size cap (bytes, rows, model text)'),
  CANCELLED: entry(499, 'the caller went away mid-run'),
  GENERATION_FAILED: entry(422, 'the engine failed while generating'),
  CONFIG: entry(500, 'a malformed server setting'),
  INTERNAL: entry(500, 'a fault of ours; the server log has the detail'),

  // spreadsheet compiler (SheetError) and the convert_spreadsheet service around it
  UNSUPPORTED_FORMAT: entry(415, 'not an .xlsx workbook'),
  FILE_TOO_LARGE: entry(413, 'the file, or what it inflates to, is over the limit'),
  TOO_MANY_ROWS: entry(413, 'more data rows than allowed'),
  TOO_MANY_COLUMNS: entry(413, 'a cell past the last column allowed'),
  USED_RANGE_TOO_LARGE: entry(413, "a sheet's used range spans more cells than allowed"),
  TOO_MANY_CELLS: entry(413, 'more cells than allowed'),
  PARSE_FAILED: entry(422, 'the workbook could not be read'),
  NO_TABLE: entry(422, 'no table with a header row was found'),
  RESOURCE_LIMIT: entry(413, 'the conversion needed more memory than its budget'),
  TIME_LIMIT: entry(413, 'the conversion needed more time than its budget'),
  INTERNAL_ERROR: entry(500, 'a fault of ours; the server log has the detail'),

  // effects (recorded on the effect's status, not answered to a request)
  EFFECT_BLOCKED: entry(403, 'the effect target is not allowed'),
  EFFECT_APPROVAL_REQUIRED: entry(403, 'an inherited effect from another owner waits for approval'),
  EFFECT_TIMEOUT: entry(504, 'the effect target did not answer in time'),
  EFFECT_NETWORK: entry(502, 'the effect target could not be reached'),
  EFFECT_HTTP_STATUS: entry(502, 'the effect target answered with a failure status'),
  EFFECT_RESPONSE_TOO_LARGE: entry(502, 'the effect response was over its size limit'),
  EFFECT_REDIRECT: entry(502, 'the effect target redirected'),
  EFFECT_INVALID_REQUEST: entry(422, 'the effect request could not be built'),
  EFFECT_FOLDBACK_FAILED: entry(422, 'the response could not be written back into the model'),
  EFFECT_LLM_FAILED: entry(502, 'the language-model call failed'),
  EFFECT_LINK_FAILED: entry(
    502,
    'a link to another model failed (target_rejected, target_busy, target_unresolved, transport_error)',
  ),

  // language-model providers and spec generation (src/llm, src/service/generate*)
  LLM_NOT_CONFIGURED: entry(503, 'no language-model provider is configured'),
  LLM_FAILED: entry(502, 'the language-model provider call failed'),
  LLM_BUDGET_EXCEEDED: entry(413, 'a generation spent its token or time budget without a usable spec'),
  GENERATION_UNCONVERGED: entry(422, 'the attempts ran out without a valid spec'),

  // expression evaluation (at the start of an evaluation's message, not answered as a request's status)
  EVAL_ALLOCATION_BUDGET: entry(413, 'an evaluation would allocate past its allocation budget'),
  EVAL_MEMORY_LIMIT: entry(413, "an ad-hoc evaluation needed more than its worker's memory"),
  EVAL_TIME_LIMIT: entry(413, 'an ad-hoc evaluation ran one step past its time budget'),
  EVAL_BUSY: entry(429, 'too many ad-hoc evaluations running and waiting: retry later'),

  // HTTP surfaces (REST server, synth Service) and the remote clients
  UNAUTHORIZED: entry(401, 'a missing or wrong API key'),
  FORBIDDEN: entry(403, 'not allowed for this caller'),
  NOT_FOUND: entry(404, 'no such route'),
  UNSUPPORTED_MEDIA_TYPE: entry(415, 'a request body of the wrong type'),
  INPUT_LIMIT: entry(413, 'a request over its key, write-size or nesting limit'),
  REQUEST_TIMEOUT: entry(408, 'the client took too long to send its request'),
  RATE_LIMITED: entry(429, 'too many requests from this client: retry later'),
  SERVICE_UNREACHABLE: entry(502, 'the remote synth Service could not be reached'),
  SERVICE_ERROR: entry(502, 'the remote synth Service answered with an error'),
} as const satisfies Record<string, CatalogueEntry>;

export type CatalogueCode = keyof typeof ERROR_CATALOGUE;

/** True for a code in the catalogue (own keys only: a code is data, never a prototype key). */
export function isCatalogueCode(code: string): code is CatalogueCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}

/** The HTTP status of a code; 500 for a code the catalogue does not know. */
export function httpStatusOf(code: string): number {
  return isCatalogueCode(code) ? ERROR_CATALOGUE[code].status : 500;
}
