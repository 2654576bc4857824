/** The shapes compare takes and returns (re-exported by ./index.ts). */
import type { ValueKind } from './values.js';

/** A table as CSV text cells: a header and rows of the same width. */
export interface Table {
  header: string[];
  rows: string[][];
}

export interface CompareOptions {
  /** Family-wise p-value under which a finding is high (Bonferroni over the report's tests). */
  highP?: number;
  /** Family-wise p-value under which a finding is medium. */
  mediumP?: number;
  /** Family-wise p-value under which a finding is low (worth a look, no more). */
  lowP?: number;
  /** A column with at most this many distinct values (pooled) is also compared as categories. */
  maxCategories?: number;
  /** Rows compared per table; more is an error (COMPARE_LIMIT). */
  maxRows?: number;
  /** Columns compared; more is an error (COMPARE_LIMIT). */
  maxColumns?: number;
  /** Numeric columns entering the correlation matrix (the first ones). */
  maxCorrelationColumns?: number;
  /**
   * Columns checked for identifiers copied from the sample: 'auto' (every column whose sample
   * values are mostly distinct) or the names (sample header) to check.
   */
  identifierColumns?: 'auto' | string[];
  /** Sample columns left out of every test (and of the whole-row ones); an unknown name is an error. */
  ignore?: string[];
}

export type Severity = 'high' | 'medium' | 'low';

export type FindingKind =
  | 'shape'
  | 'type'
  | 'precision'
  | 'date-format'
  | 'distribution'
  | 'tail'
  | 'spike'
  | 'coverage'
  | 'identifier'
  | 'correlation'
  | 'duplicates'
  | 'copied-rows';

export interface Finding {
  severity: Severity;
  kind: FindingKind;
  /** The column (sample header name) the finding is about; absent for table-wide findings. */
  column?: string;
  message: string;
  /** The effect size the severity was judged on (D, TVD, |Δρ|, a count…; see docs/compare.md). */
  measure?: number;
  /** The test's p-value after Bonferroni over the report's tests, when a test decided. */
  p?: number;
}

/** One table's figures for one column. */
export interface ColumnSummary {
  count: number;
  kinds: Record<ValueKind, number>;
  distinct: number;
  /** Numeric columns (dates as epoch milliseconds): figures of the finite values. */
  min?: number;
  max?: number;
  mean?: number;
  p01?: number;
  p50?: number;
  p99?: number;
  /** Median count of decimals of the numbers. */
  decimals?: number;
  /** The most common date shape (`9999-99-99`). */
  dateShape?: string;
}

export interface ColumnReport {
  name: string;
  generatedName: string;
  /** How the column was compared. */
  treatedAs: 'numeric' | 'date' | 'categorical' | 'numeric+categorical' | 'text' | 'identifier';
  sample: ColumnSummary;
  generated: ColumnSummary;
  /** KS statistic (numeric and date columns). */
  ks?: { d: number; p: number };
  /** Chi-square homogeneity test and total variation distance (categorical columns). */
  categories?: {
    chiSquare: number;
    df: number;
    p: number;
    tvd: number;
    missingInSample: string[];
    extraInSample: string[];
  };
}

export interface CorrelationReport {
  /** Sample names of the numeric columns in the matrices. */
  columns: string[];
  /** Spearman rank correlations (null where a column is constant). */
  sample: (number | null)[][];
  generated: (number | null)[][];
  /** The largest |Δρ| over the pairs, 0 when there is no pair. */
  maxDifference: number;
}

export interface DuplicateReport {
  /** Share of rows that repeat an earlier row of the same table. */
  sample: number;
  generated: number;
  /** Sample rows found verbatim in the output. */
  sampleRowsInOutput: number;
}

export interface CompareReport {
  sampleRows: number;
  generatedRows: number;
  /** Tests run; every p-value was multiplied by this (Bonferroni). */
  tests: number;
  findings: Finding[];
  columns: ColumnReport[];
  correlation: CorrelationReport;
  duplicateRate: DuplicateReport;
  highCount: number;
  mediumCount: number;
  lowCount: number;
  /** The sample columns left out (the `ignore` option). */
  ignored: string[];
}
