/**
 * The Parquet sink, through hyparquet-writer: one row group per batch, typed OPTIONAL columns (a missing value is null)
 * (int → INT64, double → DOUBLE, text → UTF-8 strings), Snappy pages. The file is written under a
 * temporary name beside the target and renamed over it on commit, so a reader never sees half a
 * file and a partition written twice ends as one whole file. Only a regular or missing file is
 * replaced so; a device, FIFO, socket or standard stream is written in place and a symlink's target
 * is replaced, the link kept (output-target.ts).
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { openInPlace, outputTarget } from '../output-target.js';
import { basename, dirname, join } from 'node:path';
import type { RowBatch, RowSink, SinkColumn, SinkFactory } from './sink.js';
import { SinkError } from './sink.js';

type SchemaElement = {
  name: string;
  type?: 'INT64' | 'DOUBLE' | 'BYTE_ARRAY';
  converted_type?: 'UTF8';
  repetition_type?: 'OPTIONAL';
  num_children?: number;
};

/** The Parquet schema of our columns: a root, then one optional leaf per column (null = missing). */
export function parquetSchema(columns: readonly SinkColumn[]): SchemaElement[] {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.map((c): SchemaElement => {
      const leaf: SchemaElement = { name: c.name, repetition_type: 'OPTIONAL' };
      if (c.type === 'int') return { ...leaf, type: 'INT64' };
      if (c.type === 'double') return { ...leaf, type: 'DOUBLE' };
      return { ...leaf, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
    }),
  ];
}

function columnData(columns: readonly SinkColumn[], batch: RowBatch) {
  return columns.map((c, i) => {
    const values = batch.values[i]!;
    const nullable = values.includes(null);
    // typed arrays when every value is there (the common case); plain arrays carry the nulls
    const data =
      c.type === 'int'
        ? nullable
          ? (values as readonly (number | null)[]).map((v) => (v === null ? null : BigInt(v)))
          : BigInt64Array.from(values as readonly number[], (v) => BigInt(v))
        : c.type === 'double'
          ? nullable
            ? [...(values as readonly (number | null)[])]
            : Float64Array.from(values as readonly number[])
          : [...(values as readonly (string | null)[])];
    return { name: c.name, data, nullable: true };
  });
}

/** A sink writing one Parquet file at `path` (replaced whole on commit). */
export function parquetFileSink(path: string): SinkFactory {
  return async (columns) => {
    const { ByteWriter, ParquetWriter } = await import('hyparquet-writer');
    const out = await openOutput(path);
    const bytes = new ByteWriter();
    // hand each finished row group to the file, so memory holds one batch at a time
    const flush = async (): Promise<void> => {
      if (bytes.index > 0) await out.write(bytes.getBytes().slice());
      bytes.index = 0;
    };
    Object.assign(bytes, { flush, finish: flush });
    const writer = new ParquetWriter({
      writer: bytes,
      schema: parquetSchema(columns),
      createdBy: 'modelworks synth',
    });
    return {
      async write(batch: RowBatch) {
        await writer.write({ columnData: columnData(columns, batch), rowGroupSize: batch.length });
      },
      async commit() {
        await writer.finish();
        await out.commit();
      },
      async abort() {
        await out.abort();
      },
    } satisfies RowSink;
  };
}

/** Where the file's bytes go: a temporary file renamed on commit, or the target itself. */
interface ParquetOutput {
  write(bytes: Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

async function openOutput(path: string): Promise<ParquetOutput> {
  let target;
  try {
    target = outputTarget(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    throw new SinkError('SINK_TARGET', `cannot write ${path} (${code})`);
  }
  if (target.how === 'in-place') {
    let stream: Writable;
    try {
      stream = await openInPlace(target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
      throw new SinkError('SINK_TARGET', `cannot write ${path} (${code})`);
    }
    return {
      write: (bytes) => new Promise((ok, fail) => stream.write(bytes, (err) => (err ? fail(err) : ok()))),
      async commit() {
        stream.end();
        await finished(stream);
      },
      async abort() {
        stream.destroy();
        await finished(stream).catch(() => undefined);
      },
    };
  }
  const final = target.path;
  const temp = join(dirname(final), `.${basename(final)}.${randomBytes(6).toString('hex')}.tmp`);
  let file;
  try {
    file = await open(temp, 'wx');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    throw new SinkError('SINK_TARGET', `cannot create a file in ${dirname(final)} (${code})`);
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (!closed) await file.close();
    closed = true;
  };
  return {
    write: async (bytes) => {
      await file.write(bytes);
    },
    async commit() {
      await file.sync();
      await close();
      await rename(temp, final);
    },
    async abort() {
      await close().catch(() => undefined);
      await rm(temp, { force: true });
    },
  };
}
