/**
 * The Pro catalog entries this build implements (§4.2, §4.4), except outside data (FlatFile,
 * Database, ServiceCall) and composition (Import). Same notation as the Free catalog; defaults that
 * contain `:` (URLs, timestamps) are set after parsing because the notation uses `:` for the type.
 */
import type { ComponentDescriptor, ParameterDescriptor } from './descriptor.js';
import { param } from './descriptor.js';

interface ProEntry {
  name: string;
  category: 'generator' | 'filter';
  description: string;
  input?: string;
  params: (string | ((order: number) => ParameterDescriptor))[];
}

/** A string parameter whose default holds characters the compact notation reserves. */
function literal(name: string, value: string, description = ''): (order: number) => ParameterDescriptor {
  return (order) => ({ ...param(`${name}:string|${description}`, order), defaultValue: value });
}

const FICTIONAL = 'fictionalOnly=false:boolean';
const FORMAT = 'format:string|template (§4.5) overriding the default rendering';
const LOCALE = 'locale:string|locale whose configured template applies';

const ENTRIES: ProEntry[] = [
  {
    name: 'CollaborationBeacon',
    category: 'generator',
    description: 'double counter; collaborate readers see the current value without advancing it',
    params: ['initial=0'],
  },
  { name: 'EIN', category: 'generator', description: 'US employer id `NN-NNNNNNN`', params: [] },
  {
    name: 'FhirIdRegistry',
    category: 'generator',
    description: 'one id sequence the FHIR renderers consult as a collaborate peer',
    params: ['startAt=1:int'],
  },
  { name: 'IMEI', category: 'generator', description: '15-digit IMEI with a Luhn check digit', params: [] },
  {
    name: 'IPAddress',
    category: 'generator',
    description: 'public IPv4 address (redrawn out of IANA special blocks)',
    params: [`${FICTIONAL}|true: documentation blocks 192.0.2/24, 198.51.100/24, 203.0.113/24 only`],
  },
  {
    name: 'IPv6Address',
    category: 'generator',
    description: 'IPv6 address, 8 lower-case 4-hex groups, uncompressed',
    params: [`${FICTIONAL}|true: 2001:0db8::/32 only`],
  },
  {
    name: 'Mixture',
    category: 'generator',
    description: 'one draw from a weighted mixture of generators',
    params: ['components*:string|`Type(p=v,...):weight;...`, at least two'],
  },
  {
    name: 'NPI',
    category: 'generator',
    description: '10-digit US provider id (Luhn over 80840 + 9 digits)',
    params: ['type=random{individual,organization,random}:enum|first digit 1, 2 or drawn'],
  },
  {
    name: 'RoutingNumber',
    category: 'generator',
    description: '9-digit ABA routing number with its checksum digit',
    params: [
      'prefix=assigned{assigned,government,district,thrift,electronic,traveler,unassigned,any}:enum|range of the first two digits',
    ],
  },
  {
    name: 'SSN',
    category: 'generator',
    description: 'US social security number `AAA-GG-SSSS`',
    params: [`${FICTIONAL}|true: area 900-999 only`],
  },
  {
    name: 'Address',
    category: 'filter',
    input: 'role location (city, region, postalCode[, country]), role street, optional street.<REGION>',
    description: 'Address composite',
    params: [
      'minStreetNumber=1:int',
      'maxStreetNumber=9999:int',
      'unitProbability=0.28',
      'unitLabels:string|comma list',
      'country=US:string',
      FORMAT,
    ],
  },
  {
    name: 'BusinessDay',
    category: 'filter',
    input: '1 numeric (year)',
    description: 'Date composite on a US business day',
    params: ['format:string|date pattern, default ISO yyyy-MM-dd'],
  },
  {
    name: 'CollaborationWatcher',
    category: 'filter',
    input: '1 (+ collaborate.<role> peers)',
    description: "the input's values, then the value read from each peer",
    params: [],
  },
  {
    name: 'CompanyName',
    category: 'filter',
    input: '1 of dim 3 [word1, word2, suffix]',
    description: '`Word1 Word2 Suffix` or `Word1 & Word2 Suffix`',
    params: [],
  },
  {
    name: 'Convert',
    category: 'filter',
    input: '1, dim 1 (serialized JSON)',
    description: 'object composite from a JSON text',
    params: ['class*:string|fully-qualified class name of the object'],
  },
  {
    name: 'CreditCard',
    category: 'filter',
    input: '1 of dim 3 [network, binPrefix, length]',
    description: 'CreditCard composite (Luhn-correct)',
    params: [`${FICTIONAL}|true: published test numbers`, FORMAT, LOCALE],
  },
  {
    name: 'Date',
    category: 'filter',
    input: '1 numeric (year)',
    description: 'Date composite (epoch seconds at UTC midnight)',
    params: [
      'minAge=0:int',
      'asOf:string|yyyy-MM-dd, required when minAge > 0',
      'format:string|date pattern',
    ],
  },
  {
    name: 'DomainName',
    category: 'filter',
    input: '1 of dim 2 [word, tld]',
    description: '`word.tld`, lower-case letters and digits',
    params: [],
  },
  {
    name: 'Email',
    category: 'filter',
    input: 'role name (Person), role domain',
    description: 'Email composite',
    params: ['nameBased=true:boolean', 'wordListFile=samples/pro/email_words.txt:string', FORMAT, LOCALE],
  },
  {
    name: 'Extract',
    category: 'filter',
    input: '1',
    description: 'replaces a composite column by the requested field columns',
    params: ['fields*:string|field names, or formatted', 'index=0:int|column of the composite'],
  },
  {
    name: 'FhirBloodPressureRender',
    category: 'filter',
    input: 'role systolic, role diastolic; collaborate patient, idRegistry',
    description: 'FHIR Observation JSON, LOINC 85354-9 with two components',
    params: [
      'unit=mmHg:string',
      'unitCode=mm[Hg]:string',
      literal('effectiveDateTime', '2026-01-02T09:00:00Z'),
      'idPrefix=bp:string',
    ],
  },
  {
    name: 'FhirBundleAssembler',
    category: 'filter',
    input: 'Patient render, then resource renders',
    description: 'FHIR Bundle JSON',
    params: ['id=bundle-1:string', 'type=collection:string', literal('baseUrl', 'http://example.org/fhir')],
  },
  {
    name: 'FhirObservationRender',
    category: 'filter',
    input: '1 numeric; collaborate patient, idRegistry',
    description: 'FHIR Observation JSON',
    params: [
      'code*:string|LOINC code',
      'display*:string',
      'unit:string',
      'unitCode:string',
      'category=vital-signs:string',
      literal('effectiveDateTime', '2026-01-02T09:00:00Z'),
      'idPrefix=obs:string',
    ],
  },
  {
    name: 'FhirPatientRender',
    category: 'filter',
    input: 'role person, role birthDate; collaborate idRegistry',
    description: 'FHIR Patient JSON; a collaborate target (its reference)',
    params: ['idPrefix=patient:string'],
  },
  {
    name: 'IBAN',
    category: 'filter',
    input: '1 (ISO country)',
    description: 'MOD-97 correct IBAN',
    params: [],
  },
  { name: 'ISBN', category: 'filter', input: '1 (group digit)', description: 'ISBN-13', params: [] },
  {
    name: 'MACAddress',
    category: 'filter',
    input: '1 (OUI XX:XX:XX)',
    description: 'MAC address',
    params: [],
  },
  {
    name: 'Missing',
    category: 'filter',
    input: '1',
    description:
      "the input's columns, with the columns in indexes written empty where column key holds value (ours)",
    params: [
      'key*:int|0-based column that decides',
      'indexes*[index,indices]:int[]|columns written empty',
      'value=0:string|the key value that blanks them (compared as a number when both are numbers)',
    ],
  },
  {
    name: 'NachaEntryRender',
    category: 'filter',
    input: 'roles routing, account, amount, name (+ id, trace)',
    description: '94-character NACHA entry detail (type 6) record',
    params: ['transactionCode=22{22,27,32,37}:enum', 'addenda=0:int'],
  },
  {
    name: 'NachaFileAssembler',
    category: 'filter',
    input: '1 (entry records)',
    description: 'a whole NACHA file as one multi-line string',
    params: [
      'count[entries]=10:int',
      'companyName=SPICEGRINDER CO:string',
      'companyId=1000000000:string',
      'companyEntryDescription=PAYROLL:string',
      'originatingDfi=12102537:string',
      'destinationRouting=021000021:string',
      'destinationName=ACH OPERATOR:string',
      'originName=SPICEGRINDER CO:string',
      'serviceClassCode=200:string',
      'standardEntryClass=PPD:string',
      'fileCreationDate=260101:string',
      'fileCreationTime=0000:string',
      'effectiveEntryDate=260102:string',
      'renumberTraces=true:boolean',
    ],
  },
  {
    name: 'PersonAssembler',
    category: 'filter',
    input: 'role genderGiven (dim 2), role surname (dim 1)',
    description: 'Person composite',
    params: [FORMAT, LOCALE],
  },
  {
    name: 'Perturb',
    category: 'filter',
    input: 'roles normal, disturbance, wait, duration (or that order)',
    description: 'normal rows, then disturbance rows on a wait/duration schedule',
    params: ['repeat=true:boolean', 'synchronous[sync]=false:boolean'],
  },
  {
    name: 'Phone',
    category: 'filter',
    input: '1 numeric (area code 200-999)',
    description: 'Phone composite',
    params: [`${FICTIONAL}|true: 555-0100..0199`, FORMAT, LOCALE],
  },
  {
    name: 'Time',
    category: 'filter',
    input: '1 numeric (hour 0-23)',
    description: 'Time composite (seconds since midnight)',
    params: ['format:string|time pattern, default HH:mm:ss'],
  },
  {
    name: 'UserAgent',
    category: 'filter',
    input: '1 of dim 2 [browser, osFamily]',
    description: 'browser user-agent string',
    params: [],
  },
  { name: 'VIN', category: 'filter', input: '1 (3-char WMI)', description: '17-character VIN', params: [] },
];

/** Per-input attributes these components accept. */
export const PRO_INPUT_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  Address: ['role'],
  Email: ['role'],
  FhirBloodPressureRender: ['role'],
  FhirBundleAssembler: ['role'],
  FhirObservationRender: ['role'],
  FhirPatientRender: ['role'],
  NachaEntryRender: ['role'],
  NachaFileAssembler: ['role'],
  PersonAssembler: ['role'],
  Perturb: ['role'],
};

/** The implemented Pro descriptors, generators first, each group alphabetical. */
export const PRO_CATALOG: readonly ComponentDescriptor[] = ENTRIES.map((e) => ({
  name: e.name,
  className: `modelworks.synth.${e.category === 'generator' ? 'generators' : 'filters'}.pro.${e.name}`,
  category: e.category,
  edition: 'Pro',
  description: e.description,
  input: e.input ?? 'none',
  details: '',
  parameters: e.params.map((p, i) => (typeof p === 'string' ? param(p, i) : p(i))),
}));
