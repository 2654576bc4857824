/** Component descriptors (§9.2): what `synth components` and `list_components` render. */

/** Parameter value kinds the loader knows how to parse. */
export type ParamType = 'double' | 'int' | 'boolean' | 'string' | 'enum' | 'double[]' | 'int[]' | 'matrix';

export interface ParameterDescriptor {
  name: string;
  type: ParamType;
  required: boolean;
  defaultValue: string | null;
  aliases: string[];
  allowedValues: string[];
  description: string;
  multiple: boolean;
  attributes: string[];
  minOccurrences: number;
  maxOccurrences: number;
  order: number;
}

export interface ComponentDescriptor {
  name: string;
  className: string;
  category: 'generator' | 'filter';
  edition: 'Free' | 'Pro';
  description: string;
  input: string;
  details: string;
  parameters: ParameterDescriptor[];
}

/**
 * Builds a parameter from the compact catalog notation
 * `name*[alias,alias]=default{a,b}:type|description` (`*` = required; every part but name optional).
 */
export function param(spec: string, order: number): ParameterDescriptor {
  const m = /^(\w+)(\*)?(?:\[([^\]]*)\])?(?:=([^{:|]*))?(?:\{([^}]*)\})?(?::([\w[\]]+))?(?:\|(.*))?$/.exec(
    spec,
  );
  if (m === null) throw new Error(`bad parameter spec: ${spec}`);
  const [, name, star, aliases, def, allowed, type, description] = m;
  const allowedValues = allowed === undefined ? [] : allowed.split(',');
  return {
    name: name!,
    type: (type as ParamType | undefined) ?? (allowedValues.length > 0 ? 'enum' : 'double'),
    required: star === '*',
    defaultValue: def === undefined ? null : def,
    aliases: aliases === undefined ? [] : aliases.split(','),
    allowedValues,
    description: description ?? '',
    multiple: false,
    attributes: [],
    minOccurrences: star === '*' ? 1 : 0,
    maxOccurrences: 1,
    order,
  };
}
