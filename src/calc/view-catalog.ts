/**
 * The view system's component type catalogue, as data: every valid component `type`, its group and
 * the extra fields it carries. The validator checks types against it; the view renderer reuses it to
 * decide which fields an evaluated component keeps.
 */

export type ComponentGroup =
  'inputs' | 'choice' | 'display' | 'data' | 'diagnostics' | 'containers' | 'actions';

export interface ComponentTypeInfo {
  readonly group: ComponentGroup;
  /** Fields specific to this type (beyond COMMON_COMPONENT_FIELDS). */
  readonly fields: readonly string[];
}

/** Fields every component may carry. */
export const COMMON_COMPONENT_FIELDS: readonly string[] = [
  'id',
  'type',
  'bind',
  'label',
  'visible',
  'enabled',
  'readOnly',
  'required',
  'placeholder',
  'helperText',
  'tooltip',
  'onChange',
  'className',
];

/** Plain-text fields: shown as written, never evaluated. */
export const PLAIN_TEXT_FIELDS: readonly string[] = [
  'label',
  'placeholder',
  'helperText',
  'tooltip',
  'legend',
  'header',
  'addLabel',
  'removeLabel',
  'fromLabel',
  'toLabel',
  'retryLabel',
  'emptyText',
];

/** Display expressions: evaluated only when the string contains `$`, otherwise shown literally. */
export const DISPLAY_EXPRESSION_FIELDS: readonly string[] = ['text', 'value', 'delta', 'caption', 'trend'];

/** State fields: boolean, a JSONata string (always evaluated), or null to inherit from meta. */
export const STATE_FIELDS: readonly string[] = ['visible', 'enabled', 'readOnly', 'required'];

/** Layouts a view (or a container) may declare. */
export const VIEW_LAYOUTS: readonly string[] = ['vertical', 'horizontal', 'grid', 'tabs', 'wizard'];

/**
 * Catalogue entries for several types that share a group and field list. The type names stay
 * literal, so `ComponentType` below is their union and a renderer map typed over it must name
 * every type.
 */
function family<const T extends readonly string[]>(
  group: ComponentGroup,
  types: T,
  fields: readonly string[],
): Record<T[number], ComponentTypeInfo> {
  return Object.fromEntries(types.map((t) => [t, { group, fields }])) as Record<T[number], ComponentTypeInfo>;
}

const OPTION_FIELDS = ['options', 'optionsExpr', 'optionsUrl', 'optionsPath', 'allowCustom'];
const CONTAINER_FIELDS = ['layout', 'columns', 'legend', 'collapsed', 'components'];
const MENU_FIELDS = ['menuItems', 'orientation'];

const CATALOG = {
  ...family(
    'inputs',
    [
      'textField',
      'numericField',
      'currencyField',
      'percentField',
      'passwordField',
      'emailField',
      'phoneNumberField',
      'checkboxField',
      'toggleField',
      'dateField',
      'dateTimeField',
      'timeField',
      'countrySelector',
    ],
    ['format', 'currency'],
  ),
  ...family('inputs', ['textAreaField', 'richTextField'], ['rows', 'toolbar']),
  ...family('inputs', ['sliderField', 'ratingField', 'numericStepper'], ['min', 'max', 'step']),
  ...family(
    'inputs',
    ['dateRangeField'],
    ['bindFrom', 'bindTo', 'fromLabel', 'toLabel', 'minDate', 'maxDate'],
  ),
  ...family(
    'inputs',
    ['fileUploadField'],
    ['accept', 'multiple', 'minFiles', 'maxFiles', 'minSize', 'maxSize', 'allowedMediaTypes'],
  ),
  ...family('inputs', ['countryRegionSelector'], ['options', 'dependsOn']),
  ...family(
    'choice',
    ['selectField', 'radioField', 'multiSelectField', 'autocompleteField', 'comboBox', 'tagsField'],
    OPTION_FIELDS,
  ),
  ...family('display', ['label'], ['text', 'format', 'currency']),
  ...family('display', ['staticText'], ['text', 'format']),
  ...family('display', ['badge', 'alert', 'callout'], ['text', 'variant']),
  ...family('display', ['separatorLine', 'spacer'], ['size']),
  ...family('display', ['image'], ['src', 'alt', 'width', 'height', 'fit']),
  ...family('display', ['link'], ['href', 'text', 'target', 'icon']),
  ...family('display', ['progressBar', 'gauge'], ['min', 'max', 'showValue', 'format']),
  ...family('display', ['sourceList'], ['items']),
  ...family('data', ['dataTable'], ['tableColumns', 'pageSize']),
  ...family('data', ['dataChart', 'sparkline'], ['chartType', 'chartX', 'chartSeries']),
  ...family('data', ['keyValueList', 'summaryList'], ['items', 'columns']),
  ...family(
    'data',
    ['statTile', 'metric'],
    ['value', 'delta', 'caption', 'trend', 'format', 'currency', 'variant', 'icon'],
  ),
  ...family('diagnostics', ['jsonViewer'], ['collapsed', 'maxDepth']),
  ...family('diagnostics', ['explainPanel', 'auditTimeline'], ['limit', 'showConstraints', 'collapsed']),
  ...family('diagnostics', ['validationSummary'], ['pathPrefix', 'variant', 'maxItems', 'emptyText']),
  ...family('diagnostics', ['effectStatus'], ['effectId', 'errorPath', 'showRetry', 'retryLabel', 'onRetry']),
  ...family(
    'containers',
    [
      'group',
      'fieldSet',
      'card',
      'toolbar',
      'buttonGroup',
      'tabs',
      'tabItem',
      'accordion',
      'collapsible',
      'sectionItem',
    ],
    CONTAINER_FIELDS,
  ),
  ...family(
    'containers',
    ['sectionList'],
    ['itemView', 'canAdd', 'canRemove', 'addLabel', 'removeLabel', 'layout', 'columns', 'components'],
  ),
  ...family('actions', ['button'], ['variant', 'icon', 'onClick', 'enabled']),
  ...family('actions', ['menu', 'stepper', 'breadcrumb'], MENU_FIELDS),
};

/** Every catalogued component type name. */
export type ComponentType = keyof typeof CATALOG;

/** Component type → group and extra fields. */
export const COMPONENT_CATALOG: Readonly<Record<string, ComponentTypeInfo>> = Object.freeze(CATALOG);

/** Every valid component type, in catalogue order. */
export const COMPONENT_TYPES: readonly string[] = Object.keys(COMPONENT_CATALOG);

/** True when `type` names a catalogued component type. */
export function isComponentType(type: unknown): type is string {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(COMPONENT_CATALOG, type);
}
