/**
 * One renderer per component type of the view catalogue (src/calc/view-catalog.ts). The map is
 * typed over the catalogue's type names, so a type added there without a renderer here fails to
 * compile. Inputs commit to the server; computed values carry the "Why is this number?" popover;
 * charts are plain SVG (chart.tsx).
 */
import type { ReactNode } from 'react';
import type { ComponentType } from '../../src/calc/view-catalog.js';
import { Chart } from './chart';
import { Container, Nav, SectionList } from './containers';
import {
  Badge,
  ButtonView,
  Callout,
  EffectStatus,
  ExplainHint,
  ImageView,
  JsonViewer,
  KeyValues,
  Label,
  LinkView,
  Meter,
  Separator,
  SourceList,
  Spacer,
  StatTile,
  StaticText,
  Table,
  ValidationSummary,
} from './displays';
import {
  Check,
  Choice,
  DateRange,
  FileUploadNotice,
  RangeInput,
  Stepper,
  TextArea,
  TextInput,
} from './inputs';
import { CHOICE_TYPES, INPUT_TYPES, type Component, type Json, type RejectedInput } from './model';
import type { RenderContext } from './render-context';

export { TabStrip } from './containers';
export type { RenderContext } from './render-context';

type Renderer = (props: { c: Component; ctx: RenderContext }) => ReactNode;

/** A text-like input of one HTML input type. */
const textInput =
  (type: string): Renderer =>
  ({ c, ctx }) => <TextInput c={c} ctx={ctx} type={type} />;

const RENDERERS: { readonly [T in ComponentType]: Renderer } = {
  textField: textInput('text'),
  countrySelector: textInput('text'),
  emailField: textInput('email'),
  passwordField: textInput('password'),
  phoneNumberField: textInput('tel'),
  dateField: textInput('date'),
  dateTimeField: textInput('datetime-local'),
  timeField: textInput('time'),
  numericField: textInput('number'),
  currencyField: textInput('number'),
  percentField: textInput('number'),
  ratingField: textInput('number'),
  numericStepper: Stepper,
  sliderField: RangeInput,
  checkboxField: Check,
  toggleField: Check,
  textAreaField: TextArea,
  richTextField: TextArea,
  dateRangeField: DateRange,
  fileUploadField: FileUploadNotice,
  countryRegionSelector: Choice,
  selectField: Choice,
  radioField: Choice,
  multiSelectField: Choice,
  autocompleteField: Choice,
  comboBox: Choice,
  tagsField: Choice,
  label: Label,
  staticText: StaticText,
  badge: Badge,
  alert: Callout,
  callout: Callout,
  separatorLine: Separator,
  spacer: Spacer,
  image: ImageView,
  link: LinkView,
  progressBar: Meter,
  gauge: Meter,
  sourceList: SourceList,
  dataTable: Table,
  dataChart: ({ c, ctx }) => <Chart c={c} card={ctx.card} />,
  sparkline: ({ c, ctx }) => <Chart c={c} card={ctx.card} />,
  keyValueList: KeyValues,
  summaryList: KeyValues,
  statTile: StatTile,
  metric: StatTile,
  jsonViewer: JsonViewer,
  validationSummary: ValidationSummary,
  explainPanel: ExplainHint,
  auditTimeline: ExplainHint,
  effectStatus: EffectStatus,
  sectionList: SectionList,
  group: Container,
  fieldSet: Container,
  card: Container,
  toolbar: Container,
  buttonGroup: Container,
  tabs: Container,
  tabItem: Container,
  accordion: Container,
  collapsible: Container,
  sectionItem: Container,
  button: ButtonView,
  menu: Nav,
  stepper: Nav,
  breadcrumb: Nav,
};

/** Names the type a card cannot show (the validator refuses unknown types; this guards old specs). */
function Unsupported({ c }: { c: Component }) {
  return (
    <p className="muted" data-component={c.id}>
      A {String(c.type)} cannot be shown in a card.
    </p>
  );
}

/** One component of any catalogued type. */
export function ComponentView({ c, ctx }: { c: Component; ctx: RenderContext }): ReactNode {
  if (c.visible === false) return null;
  if (!Object.hasOwn(RENDERERS, c.type)) return <Unsupported c={c} />;
  const Render = RENDERERS[c.type as ComponentType];
  return <Render c={c} ctx={ctx} />;
}

export function Components({
  list,
  ctx,
  layout,
  columns,
}: {
  list: Component[] | undefined;
  ctx: RenderContext;
  layout?: string | undefined;
  columns?: number | undefined;
}) {
  const style =
    layout === 'grid' ? { gridTemplateColumns: `repeat(${columns ?? 2}, minmax(0, 1fr))` } : undefined;
  const kind = layout ?? 'vertical';
  return (
    <div className={`layout ${kind}`} style={style}>
      {kind === 'vertical'
        ? runsOf(list ?? []).map((run) =>
            run.length === 1 ? (
              <ComponentView key={run[0]!.id} c={run[0]!} ctx={ctx} />
            ) : (
              <div key={run[0]!.id} className={`run ${runKind(run[0]!)}`}>
                {run.map((c) => (
                  <ComponentView key={c.id} c={c} ctx={ctx} />
                ))}
              </div>
            ),
          )
        : (list ?? []).map((c) => <ComponentView key={c.id} c={c} ctx={ctx} />)}
    </div>
  );
}

/** Fields and stat tiles that follow each other share a row when the card is wide enough. */
function runKind(c: Component): string | undefined {
  if (c.type === 'statTile' || c.type === 'metric') return 'tiles';
  if (INPUT_TYPES.has(c.type) || CHOICE_TYPES.has(c.type))
    return c.type === 'textAreaField' ? undefined : 'fields';
  return undefined;
}

function runsOf(list: Component[]): Component[][] {
  const runs: Component[][] = [];
  for (const c of list) {
    const last = runs.at(-1);
    const k = runKind(c);
    if (last && k !== undefined && runKind(last[0]!) === k) last.push(c);
    else runs.push([c]);
  }
  return runs;
}

export function rejectedFrom(
  list: RejectedInput[] | undefined,
): Record<string, { message: string; value: Json }> {
  return Object.fromEntries((list ?? []).map((r) => [r.path, { message: r.reason, value: r.value as Json }]));
}
