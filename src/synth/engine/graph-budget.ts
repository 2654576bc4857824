/**
 * The memory bound of one graph, from bytes (issue 40): a server's generation has a byte cap, and
 * the rows a graph holds (every node's output and scratch rows, the run's row, the column names)
 * grow with its columns, whatever the column limit is set to. Each graph keeps a ledger of the
 * columns its nodes ask for and refuses, before allocating, once they would hold more than the
 * cap: a 50-million-column row is refused when its graph is built, in microseconds, instead of
 * being allocated, drawn and rendered until its text passes the cap.
 */
import { SynthError } from '../errors.js';

/** A byte budget for the rows of every graph of a model, and the setting that raises it. */
export interface GraphBudget {
  readonly maxBytes: number;
  /** Named in the refusal (e.g. MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES). */
  readonly setting: string;
}

/**
 * What one column costs while a graph holds it: a Row keeps 8 bytes of number, 1 of kind and an
 * 8-byte slot each for text and composite; a scratch copy or a vector doubles some of it; and a
 * run names every output column (a string of ~32 bytes plus its slot). Counted generously, so
 * the real memory stays under the cap.
 */
export const COLUMN_BYTES = 64;

/**
 * A graph may always hold this much, however small the generation cap: a cap of a few kilobytes
 * bounds a generation's output, and must not refuse an ordinary model whose rows take a kilobyte of
 * memory (4 MiB is 65,536 columns, far below what strains a server).
 */
export const GRAPH_BYTES_FLOOR = 4 * 1024 * 1024;

/** The columns one graph has asked for so far, against its budget. */
export class ColumnLedger {
  private columns = 0;
  /** Columns charged to the node being built (its checkColumns requests). */
  private nodeColumns = 0;

  constructor(private readonly budget: GraphBudget | undefined) {}

  /** Starts a node: charges the rows it may keep of its inputs' widths (its scratch rows). */
  startNode(inputColumns: number, who: string): void {
    this.nodeColumns = 0;
    this.charge(inputColumns, `${who}: its inputs' ${inputColumns} columns`);
  }

  /**
   * Charges a width a node asks for before it allocates it.
   * @throws SynthError SYNTH_LIMIT when the graph's rows would pass the budget
   */
  reserve(columns: number, what: string): void {
    this.nodeColumns += columns;
    this.charge(columns, what);
  }

  /** Ends a node of `dimension` columns: charges whatever of its width it did not reserve. */
  endNode(dimension: number, who: string): void {
    if (dimension > this.nodeColumns) this.charge(dimension - this.nodeColumns, `${who}: width ${dimension}`);
  }

  private charge(columns: number, what: string): void {
    if (this.budget === undefined || !(columns > 0)) return;
    this.columns += columns;
    const bytes = this.columns * COLUMN_BYTES;
    if (bytes > Math.max(this.budget.maxBytes, GRAPH_BYTES_FLOOR))
      throw new SynthError(
        'SYNTH_LIMIT',
        `${what} would take the model's rows to ${this.columns} columns, about ${bytes} bytes (${COLUMN_BYTES} a column), over this server's generation cap of ${this.budget.maxBytes} bytes (${this.budget.setting})`,
      );
  }
}
