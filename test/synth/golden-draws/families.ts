/**
 * The parameter families of every registered component whose first draws are pinned in
 * `vectors/<Component>.json` (issue 40, point 4). A family is one way of setting a component up
 * (its own algorithm branch, an optional parameter present or absent, a mode): a model whose root
 * is that component, as XML nodes. `{{TABLES}}` is the absolute path of `tables/` beside this
 * file, `{{DB}}` a SQLite URL and `{{SERVICE}}` a local HTTP service, both made by the harness.
 *
 * Adding a component to the registry without a family here fails golden-draws.test.ts; adding a
 * family without regenerating the vectors fails it too (`npx tsx scripts/golden-draws.ts`).
 */

export interface Family {
  /** The component under test: the type of the model's root node. */
  readonly component: string;
  /** A short name for the way it is set up, unique within the component. */
  readonly family: string;
  /** The model's nodes (XML); the root node is named `X`. */
  readonly nodes: string;
}

const str = (name: string, value: string): string =>
  `<Constant name="${name}" value="${value}" type="string"/>`;
const table = (name: string, file: string, attrs = ''): string =>
  `<FlatFile name="${name}" file="{{TABLES}}/${file}"${attrs}/>`;
/** A one-input filter over `input` nodes named `I`. */
const over = (type: string, attrs: string, input: string): string =>
  `<${type} name="X"${attrs}><input name="I"/></${type}>${input}`;
const gen = (component: string, family: string, attrs = ''): Family => ({
  component,
  family,
  nodes: `<${component} name="X"${attrs}/>`,
});
const fam = (component: string, family: string, nodes: string): Family => ({ component, family, nodes });

/** A Person composite source: gender and given name (dim 2), then surname. */
const PERSON =
  '<PersonAssembler name="P"><input name="GG" role="genderGiven"/><input name="S" role="surname"/></PersonAssembler>' +
  '<Mix name="GG"><input name="MaleGG"/><input name="FemaleGG"/></Mix>' +
  `<Append name="MaleGG"><input name="ML"/><input name="MG"/></Append>${str('ML', 'male')}${table('MG', 'male.csv')}` +
  `<Append name="FemaleGG"><input name="FL"/><input name="FG"/></Append>${str('FL', 'female')}${table('FG', 'female.csv')}` +
  table('S', 'surnames.csv');
const ENTRY_INPUTS =
  '<input name="R" role="routing"/><input name="A" role="account"/><input name="M" role="amount"/><input name="N" role="name"/>';
const ENTRY_SOURCES =
  '<RoutingNumber name="R"/><ToInteger name="A"><input name="AU"/></ToInteger><Uniform name="AU" min="10000000" max="99999999"/>' +
  '<Uniform name="M" min="10" max="5000"/>' +
  table('N', 'surnames.csv');
const FHIR_PEERS = ' collaborate.idRegistry="Ids" collaborate.patient="Pat"';
const FHIR_PATIENT =
  '<FhirIdRegistry name="Ids"/>' +
  '<FhirPatientRender name="Pat" collaborate.idRegistry="Ids"><input name="P" role="person"/><input name="DOB" role="birthDate"/></FhirPatientRender>' +
  PERSON +
  '<Date name="DOB" minAge="18" asOf="2026-08-17"><input name="BY"/></Date><Uniform name="BY" min="1950" max="2008"/>';

export const FAMILIES: readonly Family[] = [
  // continuous generators
  gen('Uniform', 'defaults'),
  gen('Uniform', 'min-max', ' min="-3.5" max="12"'),
  gen('Uniform', 'int-bounds', ' min="1" max="7"'),
  gen('Normal', 'defaults'),
  gen('Normal', 'mean-sigma', ' mean="72" sigma="8"'),
  gen('Normal', 'sigma-zero', ' mean="3" sigma="0"'),
  gen('Lognormal', 'defaults'),
  gen('Lognormal', 'mu-sigma', ' mu="1.5" sigma="0.4"'),
  gen('Exponential', 'defaults'),
  gen('Exponential', 'lambda', ' lambda="0.25"'),
  gen('Gamma', 'shape-below-one', ' shape="0.4" scale="2"'),
  gen('Gamma', 'shape-above-one', ' shape="3.5" scale="1.5"'),
  gen('Gamma', 'rate', ' shape="2" rate="4"'),
  gen('Beta', 'defaults'),
  gen('Beta', 'small-shapes', ' alpha="0.5" beta="0.7"'),
  gen('Beta', 'large-shapes', ' alpha="2.5" beta="8"'),
  gen('ChiSquared', 'defaults'),
  gen('ChiSquared', 'df', ' df="7.5"'),
  gen('StudentT', 'defaults'),
  gen('StudentT', 'df', ' df="12"'),
  gen('FDistribution', 'defaults'),
  gen('FDistribution', 'd1-d2', ' d1="5" d2="11"'),
  gen('Gumbel', 'defaults'),
  gen('Gumbel', 'mu-beta', ' mu="10" beta="2.5"'),
  gen('Laplace', 'defaults'),
  gen('Laplace', 'mu-b', ' mu="-2" b="0.5"'),
  gen('Logistic', 'defaults'),
  gen('Logistic', 'mu-s', ' mu="4" s="1.7"'),
  gen('Pareto', 'defaults'),
  gen('Pareto', 'scale-shape', ' scale="3" shape="2.5"'),
  gen('Weibull', 'defaults'),
  gen('Weibull', 'shape-scale', ' shape="1.5" scale="2"'),
  gen('Weibull', 'shape-below-one', ' shape="0.6" scale="10"'),
  gen('Triangular', 'defaults'),
  gen('Triangular', 'skewed', ' min="2" mode="3" max="10"'),
  gen('Triangular', 'mode-at-min', ' min="0" mode="0" max="4"'),
  gen('InverseGaussian', 'defaults'),
  gen('InverseGaussian', 'mu-lambda', ' mu="3" lambda="0.8"'),
  gen('VonMises', 'defaults'),
  gen('VonMises', 'large-kappa', ' mu="1" kappa="25"'),
  gen('VonMises', 'kappa-zero', ' mu="0.5" kappa="0"'),
  // discrete generators
  gen('Bernoulli', 'defaults'),
  gen('Bernoulli', 'p', ' p="0.2"'),
  gen('Binomial', 'defaults'),
  gen('Binomial', 'standard', ' n="20" p="0.3"'),
  gen('Binomial', 'fast', ' n="20" p="0.3" mode="fast"'),
  gen('Binomial', 'fast-large-n', ' n="1000" p="0.45" mode="fast"'),
  gen('Categorical', 'weights', ' weights="1,2,3,4"'),
  gen('Categorical', 'zero-weight', ' weights="0.5,0,0.5"'),
  gen('Empirical', 'unweighted', ' values="1.5,2,4,8"'),
  gen('Empirical', 'weighted', ' values="10:1,20:3,30:6"'),
  gen('Geometric', 'defaults'),
  gen('Geometric', 'p', ' p="0.08"'),
  gen('Poisson', 'defaults'),
  gen('Poisson', 'small-lambda', ' lambda="4.2"'),
  gen('Poisson', 'large-lambda-standard', ' lambda="45"'),
  gen('Poisson', 'large-lambda-mode', ' lambda="45" mode="large-lambda"'),
  gen('Skellam', 'defaults'),
  gen('Skellam', 'lambdas', ' lambda1="3" lambda2="5.5"'),
  gen('Skellam', 'fast-large', ' lambda1="40" lambda2="35" mode="fast"'),
  gen('NegativeBinomial', 'defaults'),
  gen('NegativeBinomial', 'r-p', ' r="3.5" p="0.3"'),
  gen('NegativeBinomial', 'fast', ' r="3.5" p="0.3" mode="fast"'),
  gen('Hypergeometric', 'standard', ' population="50" successStates="12" draws="10"'),
  gen('Hypergeometric', 'fast', ' population="50" successStates="12" draws="10" mode="fast"'),
  gen('Zipf', 'defaults'),
  gen('Zipf', 'n-s', ' n="100" s="1.3"'),
  // multivariate generators
  gen('MultivariateNormal', 'diagonal', ' means="72,118,98" sigmas="8,12,1.5"'),
  gen('MultivariateNormal', 'covariance', ' means="0,10" covariance="4,1.2;1.2,1" dimension="2"'),
  gen('Dirichlet', 'alpha', ' alpha="1,2,3"'),
  gen('Dirichlet', 'small-alpha', ' alpha="0.3,0.3"'),
  gen('Multinomial', 'defaults', ' weights="1,1,2"'),
  gen('Multinomial', 'trials', ' weights="0.2,0.5,0.3" trials="12"'),
  gen('Wishart', 'scale', ' df="4" scale="2,0.5,0.5,1"'),
  gen('InverseWishart', 'scale', ' df="5" scale="2,0.5,0.5,1"'),
  // deterministic generators
  gen('Constant', 'double', ' value="2.5"'),
  gen('Constant', 'int', ' value="7" type="int"'),
  gen('Constant', 'string', ' value="hello, world" type="string"'),
  gen('Sequence', 'defaults'),
  gen('Sequence', 'start-step', ' start="1000" step="-2.5"'),
  gen('Polynomial', 'constant', ' coefficients="1,2,3" x="2"'),
  gen('Polynomial', 'sequence', ' coefficients="1,2,3" xMode="sequence" x="0" xStep="0.5"'),
  gen('Polynomial', 'uniform', ' coefficients="0,0,1" xMode="uniform" xMin="-1" xMax="2"'),
  // Free filters
  fam(
    'Append',
    'two-inputs',
    '<Append name="X"><input name="U"/><input name="V"/></Append><Uniform name="U"/><Normal name="V"/>',
  ),
  fam(
    'Arrange',
    'repeat-reorder',
    over('Arrange', ' columns="1 0 1"', '<Dirichlet name="I" alpha="1,2,3"/>'),
  ),
  fam(
    'Calculate',
    'arithmetic',
    over(
      'Calculate',
      ' expression="y[0] = x[0] * 2 + x[1]; y[1] = x[0] - x[1]"',
      '<Dirichlet name="I" alpha="2,2"/>',
    ),
  ),
  fam('Redimension', 'chunks', over('Redimension', ' dimension="3"', '<Normal name="I"/>')),
  fam('ToInteger', 'floor', over('ToInteger', '', '<Uniform name="I" min="-5" max="5"/>')),
  fam(
    'ToInteger',
    'round-index',
    over('ToInteger', ' mode="round" indexes="1"', '<Dirichlet name="I" alpha="1,1,1"/>'),
  ),
  fam('ToInteger', 'ceiling', over('ToInteger', ' mode="ceiling"', '<Normal name="I" sigma="3"/>')),
  fam('ToInteger', 'truncate', over('ToInteger', ' mode="truncate"', '<Normal name="I" sigma="3"/>')),
  // whole: whole values become integers, the others stay as they are (a Mix of both)
  fam(
    'ToInteger',
    'whole',
    over(
      'ToInteger',
      ' mode="whole"',
      '<Mix name="I"><input name="W"/><input name="F"/></Mix><Constant name="W" value="2"/><Normal name="F"/>',
    ),
  ),
  fam('Truncate', 'truncate', over('Truncate', ' min="-0.5" max="0.5"', '<Normal name="I"/>')),
  fam('Truncate', 'censor', over('Truncate', ' min="0" mode="censor"', '<Normal name="I"/>')),
  fam(
    'Mix',
    'weighted',
    '<Mix name="X"><input name="U" weight="1"/><input name="V" weight="3"/></Mix><Sequence name="U"/><Normal name="V" mean="100"/>',
  ),
  fam(
    'Mix',
    'synchronous',
    '<Mix name="X" synchronous="true"><input name="U"/><input name="V"/></Mix><Sequence name="U"/><Normal name="V" mean="100"/>',
  ),
  fam(
    'Switch',
    'default-branch',
    '<Switch name="X" key="0"><input name="K" role="input"/><input name="One" value="1"/><input name="Other" value="*"/></Switch>' +
      '<Categorical name="K" weights="1,1,1"/><Normal name="One"/><Uniform name="Other" min="10" max="20"/>',
  ),
  fam(
    'Pool',
    'count-role',
    '<Pool name="X"><input name="E" role="entity"/><input name="C" role="count"/></Pool>' +
      '<Sequence name="E" start="1"/><Poisson name="C" lambda="2"/>',
  ),
  fam(
    'Pool',
    'count-column-interleave',
    '<Pool name="X" countColumn="1" interleave="2"><input name="E"/></Pool>' +
      '<Append name="E"><input name="Id"/><input name="N"/></Append><Sequence name="Id" start="1"/><Geometric name="N" p="0.5"/>',
  ),
  fam(
    'Copula',
    'gaussian',
    '<Copula name="X" correlation="1,0.7;0.7,1"><input name="A"/><input name="B"/></Copula><Normal name="A"/><Exponential name="B" lambda="2"/>',
  ),
  fam(
    'Copula',
    'student-t',
    '<Copula name="X" correlation="1,-0.4;-0.4,1" df="4"><input name="A"/><input name="B"/></Copula><Lognormal name="A" sigma="0.5"/><Uniform name="B"/>',
  ),
  // outside data
  fam('FlatFile', 'unweighted', table('X', 'people.csv', ' skipHeader="true" textColumns="1"')),
  fam('FlatFile', 'weighted', table('X', 'weighted.csv', ' skipHeader="true" mode="weighted"')),
  fam(
    'FlatFile',
    'sequential-repeat',
    table('X', 'people.csv', ' skipHeader="true" mode="sequential" onExhaustion="repeat"'),
  ),
  fam('Database', 'table', '<Database name="X" url="{{DB}}" table="people"/>'),
  fam(
    'Database',
    'query-weighted',
    '<Database name="X" url="{{DB}}" query="SELECT w, name FROM people ORDER BY w" mode="weighted"/>',
  ),
  fam(
    'Database',
    'sequential-repeat',
    '<Database name="X" url="{{DB}}" table="people" mode="sequential" onExhaustion="repeat"/>',
  ),
  fam('Import', 'library', '<Import name="X" file="{{TABLES}}/d6-lib.xml"/>'),
  fam('Import', 'prefix', '<Import name="X" file="{{TABLES}}/d6-lib.xml" prefix="dice"/>'),
  fam('ServiceCall', 'static', '<ServiceCall name="X" url="{{SERVICE}}/static" outputs="numeric,string"/>'),
  // Pro generators
  gen('SSN', 'defaults'),
  gen('SSN', 'fictional', ' fictionalOnly="true"'),
  gen('EIN', 'defaults'),
  gen('NPI', 'random'),
  gen('NPI', 'individual', ' type="individual"'),
  gen('NPI', 'organization', ' type="organization"'),
  gen('IMEI', 'defaults'),
  gen('RoutingNumber', 'assigned'),
  gen('RoutingNumber', 'thrift', ' prefix="thrift"'),
  gen('RoutingNumber', 'any', ' prefix="any"'),
  gen('IPAddress', 'defaults'),
  gen('IPAddress', 'fictional', ' fictionalOnly="true"'),
  gen('IPv6Address', 'defaults'),
  gen('IPv6Address', 'fictional', ' fictionalOnly="true"'),
  gen('CollaborationBeacon', 'initial', ' initial="100"'),
  gen('FhirIdRegistry', 'start', ' startAt="5"'),
  gen('Mixture', 'two-parts', ' components="Normal(mean=0, sigma=1):2; Uniform(min=5, max=6)"'),
  gen('Mixture', 'with-constant', ' components="Constant(value=1):1;Weibull(shape=2, scale=3):3"'),
  // Pro filters
  fam('Date', 'year', over('Date', '', '<Uniform name="I" min="1950" max="2008"/>')),
  fam(
    'Date',
    'min-age',
    over('Date', ' minAge="18" asOf="2026-08-17"', '<Uniform name="I" min="1990" max="2009"/>'),
  ),
  fam(
    'Date',
    'format',
    over('Date', ' format="dd/MM/yyyy EEE"', '<Uniform name="I" min="2000" max="2030"/>'),
  ),
  fam('BusinessDay', 'year', over('BusinessDay', '', '<Uniform name="I" min="2020" max="2027"/>')),
  fam('Time', 'hour', over('Time', '', '<Uniform name="I" min="0" max="24"/>')),
  fam('Time', 'format', over('Time', ' format="h:mm a"', '<Uniform name="I" min="0" max="24"/>')),
  fam(
    'Perturb',
    'repeat',
    '<Perturb name="X"><input name="N" role="normal"/><input name="D" role="disturbance"/><input name="W" role="wait"/><input name="L" role="duration"/></Perturb>' +
      '<Normal name="N"/><Normal name="D" mean="50"/><Poisson name="W" lambda="3"/><Poisson name="L" lambda="2"/>',
  ),
  fam(
    'Perturb',
    'once-synchronous',
    '<Perturb name="X" repeat="false" synchronous="true"><input name="N" role="normal"/><input name="D" role="disturbance"/><input name="W" role="wait"/><input name="L" role="duration"/></Perturb>' +
      '<Sequence name="N"/><Sequence name="D" start="1000"/><Constant name="W" value="3"/><Constant name="L" value="2"/>',
  ),
  fam(
    'Missing',
    'key',
    over(
      'Missing',
      ' key="1" indexes="0"',
      '<Append name="I"><input name="V"/><input name="K"/></Append><Normal name="V"/><Bernoulli name="K" p="0.3"/>',
    ),
  ),
  fam(
    'Missing',
    'value',
    over(
      'Missing',
      ' key="1" indexes="0" value="no"',
      '<Append name="I"><input name="V"/><input name="K"/></Append><Uniform name="V"/><Bernoulli name="K" p="0.5"/>',
    ),
  ),
  fam(
    'CollaborationWatcher',
    'two-peers',
    '<CollaborationWatcher name="X" collaborate.primary="A" collaborate.secondary="B"><input name="S"/></CollaborationWatcher>' +
      '<Append name="S"><input name="A"/><input name="U"/></Append><CollaborationBeacon name="A" initial="100"/><Uniform name="U"/><CollaborationBeacon name="B" initial="500"/>',
  ),
  fam('PersonAssembler', 'default-format', PERSON.replace('name="P"', 'name="X"').replace(/"P"/g, '"X"')),
  fam(
    'PersonAssembler',
    'format',
    PERSON.replace(
      '<PersonAssembler name="P"',
      '<PersonAssembler name="X" format="{surname}, {givenName} ({gender})"',
    ),
  ),
  fam(
    'Email',
    'name-based',
    `<Email name="X"><input name="P" role="name"/><input name="D" role="domain"/></Email>${PERSON}${table('D', 'domains.csv', ' mode="weighted"')}`,
  ),
  fam(
    'Email',
    'random-words',
    `<Email name="X" nameBased="false" wordListFile="{{TABLES}}/words.txt"><input name="D" role="domain"/></Email>${table('D', 'domains.csv', ' mode="weighted"')}`,
  ),
  fam('Phone', 'defaults', over('Phone', '', areaCodes())),
  fam('Phone', 'fictional', over('Phone', ' fictionalOnly="true"', areaCodes())),
  fam('Phone', 'format', over('Phone', ' format="{areaCode}.{exchange}.{subscriber}"', areaCodes())),
  fam(
    'Address',
    'us',
    '<Address name="X"><input name="L" role="location"/><input name="S" role="street"/></Address>' +
      table('L', 'us-places.csv', ' textColumns="2"') +
      table('S', 'streets.csv'),
  ),
  fam(
    'Address',
    'canada-quebec',
    '<Address name="X" country="CA"><input name="L" role="location"/><input name="S" role="street"/><input name="Q" role="street.QC"/></Address>' +
      table('L', 'ca-places.csv') +
      table('S', 'streets.csv') +
      table('Q', 'streets-qc.csv'),
  ),
  fam(
    'Address',
    'options',
    '<Address name="X" minStreetNumber="10" maxStreetNumber="99" unitProbability="0.9" unitLabels="Flat,Room" format="{number} {street}[ / {unit}] - {city}"><input name="L" role="location"/><input name="S" role="street"/></Address>' +
      table('L', 'us-places.csv', ' textColumns="2"') +
      table('S', 'streets.csv'),
  ),
  fam('CreditCard', 'networks', over('CreditCard', '', cards())),
  fam('CreditCard', 'fictional', over('CreditCard', ' fictionalOnly="true"', cards())),
  fam('IBAN', 'countries', over('IBAN', '', mixOf(['DE', 'GB', 'FR', 'ES', 'IT', 'NL']))),
  fam('ISBN', 'groups', over('ISBN', '', mixOf(['0', '1', '3']))),
  fam('MACAddress', 'ouis', over('MACAddress', '', mixOf(['00:1A:2B', 'FC:FB:FB']))),
  fam('VIN', 'wmis', over('VIN', '', mixOf(['1G1', 'JTD', 'WVW']))),
  fam(
    'CompanyName',
    'words',
    over(
      'CompanyName',
      '',
      `<Append name="I"><input name="W1"/><input name="W2"/><input name="Suf"/></Append>${table('W1', 'words.txt')}${table('W2', 'words.txt')}${mixOf(['Inc.', 'LLC', '&amp; Sons'], 'Suf')}`,
    ),
  ),
  fam(
    'DomainName',
    'word-tld',
    over(
      'DomainName',
      '',
      `<Append name="I"><input name="W"/><input name="T"/></Append>${table('W', 'words.txt')}${mixOf(['com', 'io'], 'T')}`,
    ),
  ),
  fam(
    'UserAgent',
    'browsers',
    over(
      'UserAgent',
      '',
      `<Mix name="I"><input name="B1"/><input name="B2"/><input name="B3"/></Mix>` +
        `<Append name="B1"><input name="B1a"/><input name="B1b"/></Append>${str('B1a', 'Chrome')}${str('B1b', 'Windows')}` +
        `<Append name="B2"><input name="B2a"/><input name="B2b"/></Append>${str('B2a', 'Safari')}${str('B2b', 'macOS')}` +
        `<Append name="B3"><input name="B3a"/><input name="B3b"/></Append>${str('B3a', 'Firefox')}${str('B3b', 'Linux')}`,
    ),
  ),
  fam(
    'Extract',
    'address-fields',
    '<Extract name="X" fields="number,streetLine,postalCode"><input name="A"/></Extract>' +
      '<Address name="A"><input name="L" role="location"/><input name="S" role="street"/></Address>' +
      table('L', 'us-places.csv', ' textColumns="2"') +
      table('S', 'streets.csv'),
  ),
  fam(
    'Extract',
    'index-formatted',
    '<Extract name="X" fields="surname formatted" index="1"><input name="A"/></Extract><Append name="A"><input name="U"/><input name="P"/></Append><Uniform name="U"/>' +
      PERSON,
  ),
  fam(
    'Convert',
    'json',
    '<Convert name="X" class="com.example.Order"><input name="J"/></Convert>' +
      mixOf(
        ['{"id":1,"tags":["a","b"]}', '{"id":2,"total":9.5}'].map((j) => j.replace(/"/g, '&quot;')),
        'J',
      ),
  ),
  fam(
    'FhirPatientRender',
    'patient',
    FHIR_PATIENT.replace('name="Pat"', 'name="X"').replace(
      ' collaborate.idRegistry="Ids"><input name="P"',
      ' collaborate.idRegistry="Ids" idPrefix="pt"><input name="P"',
    ),
  ),
  fam(
    'FhirObservationRender',
    'heart-rate',
    `<FhirObservationRender name="X" code="8867-4" display="Heart rate" unit="beats/minute" unitCode="/min"${FHIR_PEERS}><input name="HR"/></FhirObservationRender>` +
      '<Normal name="HR" mean="72" sigma="8"/>' +
      FHIR_PATIENT,
  ),
  fam(
    'FhirBloodPressureRender',
    'defaults',
    `<FhirBloodPressureRender name="X"${FHIR_PEERS}><input name="Sys" role="systolic"/><input name="Dia" role="diastolic"/></FhirBloodPressureRender>` +
      '<Normal name="Sys" mean="118" sigma="12"/><Normal name="Dia" mean="78" sigma="6"/>' +
      FHIR_PATIENT,
  ),
  fam(
    'FhirBundleAssembler',
    'vitals',
    '<FhirBundleAssembler name="X" id="vitals-1" baseUrl="https://fhir.test/r4/"><input name="Pat"/><input name="HeartRateObs"/></FhirBundleAssembler>' +
      `<FhirObservationRender name="HeartRateObs" code="8867-4" display="Heart rate"${FHIR_PEERS}><input name="HR"/></FhirObservationRender>` +
      '<Normal name="HR" mean="72" sigma="8"/>' +
      FHIR_PATIENT,
  ),
  fam(
    'NachaEntryRender',
    'credit',
    `<NachaEntryRender name="X">${ENTRY_INPUTS}</NachaEntryRender>${ENTRY_SOURCES}`,
  ),
  fam(
    'NachaEntryRender',
    'debit-addenda-id-trace',
    `<NachaEntryRender name="X" transactionCode="27" addenda="1">${ENTRY_INPUTS}<input name="Id" role="id"/><input name="T" role="trace"/></NachaEntryRender>${ENTRY_SOURCES}` +
      '<ToInteger name="Id"><input name="IdU"/></ToInteger><Uniform name="IdU" min="1000" max="9999"/><Sequence name="T" start="500"/>',
  ),
  fam(
    'NachaFileAssembler',
    'defaults',
    `<NachaFileAssembler name="X" count="3"><input name="E"/></NachaFileAssembler><NachaEntryRender name="E">${ENTRY_INPUTS}</NachaEntryRender>${ENTRY_SOURCES}`,
  ),
  fam(
    'NachaFileAssembler',
    'ten-digit-company',
    `<NachaFileAssembler name="X" count="2" companyId="1234567890" companyName="ACME PAYROLL"><input name="E"/></NachaFileAssembler><NachaEntryRender name="E">${ENTRY_INPUTS}</NachaEntryRender>${ENTRY_SOURCES}`,
  ),
  fam(
    'NachaFileAssembler',
    'routing-origin-kept-traces',
    `<NachaFileAssembler name="X" count="12" companyId="121025375" renumberTraces="false"><input name="E"/></NachaFileAssembler><NachaEntryRender name="E" addenda="1">${ENTRY_INPUTS}</NachaEntryRender>${ENTRY_SOURCES}`,
  ),
];

/** One draw per row over constant strings, as an unweighted one-column table would take. */
function mixOf(values: readonly string[], name = 'I'): string {
  return (
    `<Mix name="${name}">${values.map((_, i) => `<input name="${name}V${i}"/>`).join('')}</Mix>` +
    values.map((v, i) => str(`${name}V${i}`, v)).join('')
  );
}

function areaCodes(): string {
  return '<Empirical name="I" values="212,415:2,907"/>';
}

function cards(): string {
  return table('I', 'cards.csv', ' textColumns="1"');
}
