/**
 * The outside-access policy of a synth run (synth-spec §9.3): which absolute flat-file paths,
 * database URLs and service URLs a model may reach, and whether free-form SQL is allowed.
 * Pure data here; loading it from a file and the environment is the service layer's job
 * (src/service/synth-allowlists.ts), enforcing it is the access ports' job.
 */

/** Field names are the wire contract of `get_allowlists` and `GET /v1/allowlists`. */
export interface Allowlists {
  /** Absolute path prefixes (symlinks resolved) under which FlatFile may read. Empty = none. */
  readonly flatFilePathAllowlist: readonly string[];
  /** Database URL prefixes a Database node may open. Empty = databases disabled. */
  readonly databaseUrlAllowlist: readonly string[];
  /** Whether a Database node may run its own `query` (otherwise only `table`). */
  readonly databaseAllowQuery: boolean;
  /** Service URLs a ServiceCall node may call. Empty = service calls disabled. */
  readonly serviceUrlAllowlist: readonly string[];
}

/** The default policy: nothing outside the model's folder and the working directory. */
export const CLOSED_ALLOWLISTS: Allowlists = Object.freeze({
  flatFilePathAllowlist: [],
  databaseUrlAllowlist: [],
  databaseAllowQuery: false,
  serviceUrlAllowlist: [],
});
