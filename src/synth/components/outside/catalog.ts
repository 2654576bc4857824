/**
 * Descriptors of the components that reach outside data (§4.2, §4.4): FlatFile, Database,
 * ServiceCall, and Import (inlined by the loader, listed for completeness and `.sgm` positions).
 */
import type { ComponentDescriptor } from '../descriptor.js';
import { param } from '../descriptor.js';

const MODES = [
  'mode=unweighted{sequential,unweighted,weighted}:enum|sequential walks rows in order; the others sample with replacement',
  'onExhaustion[exhaustion,onend]=error{error,repeat,hold,null}:enum|sequential only: fail, start over, repeat the last row, or emit empty values',
  'weightColumn[weight,weightcol,weightindex]=0:string|weighted only: index or header name; not emitted',
];

function pro(
  name: string,
  category: 'generator' | 'filter',
  description: string,
  input: string,
  params: string[],
): ComponentDescriptor {
  return {
    name,
    className: `modelworks.synth.${category === 'generator' ? 'generators' : 'filters'}.${name}`,
    category,
    edition: 'Pro',
    description,
    input,
    details: '',
    parameters: params.map((p, i) => param(p, i)),
  };
}

export const OUTSIDE_CATALOG: readonly ComponentDescriptor[] = [
  pro('Database', 'generator', 'one row of a database table or query per observation', 'none', [
    'url*[jdbcurl,connection]:string|jdbc:sqlite:<path>, jdbc:postgresql://host/db or postgres://host/db; must be on the database URL allowlist',
    'user[username]:string',
    'password[pass]:string',
    'driver[driverclass]:string|accepted for compatibility; the URL picks the driver',
    'table:string|reads SELECT * (add ORDER BY through a query for a fixed order)',
    'query[sql]:string|only when the allowlists allow queries',
    ...MODES,
  ]),
  pro('FlatFile', 'generator', 'one row of a delimited text table per observation', 'none', [
    'file*[filename,path]:string|relative to the model file, then the working directory; absolute paths need the allowlist',
    'skipHeader[header]=false:boolean|the first data line holds column names',
    'delimiter[sep,separator]=,:string|one character; "\\t" or "tab" for tabs',
    'textColumns[text,textcolumn]:string|indexes or header names kept as text even when numeric',
    ...MODES,
  ]),
  pro('Import', 'generator', "a library model inlined in place; stands for the library's root", 'none', [
    'file*:string|relative to the importing file',
    "prefix:string|namespace of the library's nodes (default: the Import's name)",
  ]),
  pro('ServiceCall', 'filter', 'rows fetched from an allowlisted HTTP service during the load', '0..1', [
    'url*:string|must be on the service URL allowlist',
    'outputs*:string|column kinds, e.g. numeric,string (count = dimension)',
    'timeoutMs=5000:int|per request',
    'maxRounds=25:int|requests at most',
    'headers:string|Name=Value;Name=Value',
  ]),
];
