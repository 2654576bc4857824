/**
 * The ports through which a synth run reaches outside data. The engine only sees these pure
 * interfaces; adapters doing real IO live outside it (src/synth-io/). Every request reaching a
 * port has already passed the policy checks of this folder, so an adapter never decides access.
 */

/** Files (models to import, flat-file tables). Synchronous: files are read during the load. */
export interface FilePort {
  /** The canonical absolute path (symlinks followed), or undefined when nothing exists there. */
  realpath(path: string): string | undefined;
  /** The whole text of the file at a canonical path. */
  readText(path: string): string;
}

/** One cell of a table read from a database or a service. */
export type Cell = string | number | null;

/** A table: column names and rows of cells (rows may be shorter than `columns`). */
export interface TableData {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

/** A database URL reduced to what identifies the database (see urls.ts). */
export type DatabaseTarget =
  { kind: 'sqlite'; path: string } | { kind: 'postgres'; host: string; port: string; database: string };

/** A database read that passed the URL allowlist and the query gate. */
export interface DatabaseRequest {
  /** The URL as written (`jdbc:sqlite:…`, `jdbc:postgresql://…`, `postgres://…`). */
  readonly url: string;
  /** The URL as the allowlist check understood it; adapters connect to exactly this. */
  readonly target: DatabaseTarget;
  readonly user?: string;
  readonly password?: string;
  /** A validated table name (`name` or `schema.name`); the adapter reads `SELECT *` from it. */
  readonly table?: string;
  /** Free-form SQL; only present when the query gate allows it. */
  readonly query?: string;
}

/** Databases: always asynchronous (pg is), so tables are loaded before generation starts. */
export interface DatabasePort {
  read(request: DatabaseRequest): Promise<TableData>;
}

/** One HTTP round of a ServiceCall that passed the service URL allowlist. */
export interface ServiceRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** 0-based round number (also sent as the `round` query parameter). */
  readonly round: number;
  /** The allowlist check for redirect targets: the adapter follows a redirect only when true. */
  readonly allowRedirect: (url: string) => boolean;
}

/** Services: the adapter performs one GET and returns the body text. */
export interface ServicePort {
  fetch(request: ServiceRequest): Promise<string>;
}

/** Custom components: the adapter loads the ES module at a canonical path the policy accepted. */
export interface ModulePort {
  load(path: string): Promise<unknown>;
}

/** Every port a run may use; a missing port makes a model that needs it a load error. */
export interface AccessPorts {
  readonly files?: FilePort;
  readonly modules?: ModulePort;
  readonly database?: DatabasePort;
  readonly service?: ServicePort;
}
