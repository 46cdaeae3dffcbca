/**
 * CloudFormation's intrinsic functions, evaluated where a test can know their value: `Ref` to a parameter (the
 * value passed, else its `Default`) or a pseudo parameter passed, `Fn::Sub`, `Fn::Join`, `Fn::Select`,
 * `Fn::Split`, `Fn::FindInMap`, and `Fn::If` on the template's `Conditions`. What only a deploy knows (`Fn::GetAtt`,
 * `Fn::ImportValue`, a `Ref` to a resource, `AWS::AccountId` unless passed) is an `Unresolved` that names it.
 */
import { isPlainObject } from '../../engine/options.js';
import { Unresolved, written } from './errors.js';

/** `Ref: AWS::NoValue`: the property or list item is left out. */
export const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

/** What the intrinsic functions of one template are evaluated against. */
export interface IntrinsicScope {
  /** Serverless variables of a string resolved (the value as it is in a CloudFormation template). */
  expand(value: unknown): Promise<unknown>;
  /** A section of the template (`Parameters`, `Mappings`, `Conditions`), or `{}`. */
  section(name: 'Parameters' | 'Mappings' | 'Conditions'): Promise<Readonly<Record<string, unknown>>>;
  /** A pseudo parameter the template's tool fixes without AWS (serverless: `AWS::StackName`, `AWS::Region`). */
  pseudo(name: string): Promise<string | undefined>;
  /** Parameter and pseudo parameter values the test passed. */
  readonly parameters: Readonly<Record<string, string>>;
  /** The template's logical ids: a `Ref` to one is a physical id, known only once deployed. */
  readonly resourceIds: ReadonlySet<string>;
}

const atDeploy = 'is known only when the stack is deployed';

/** `value` with every intrinsic function evaluated; {@link NO_VALUE} where it is `AWS::NoValue`. */
export async function evaluate(value: unknown, scope: IntrinsicScope): Promise<unknown> {
  const v = await scope.expand(value);
  if (Array.isArray(v)) {
    const items: unknown[] = [];
    for (const item of v) {
      const resolved = await evaluate(item, scope);
      if (resolved !== NO_VALUE) items.push(resolved);
    }
    return items;
  }
  if (!isPlainObject(v)) return v;
  const keys = Object.keys(v);
  const [only] = keys;
  if (keys.length === 1 && only !== undefined && (only === 'Ref' || only.startsWith('Fn::'))) return intrinsic(only, v[only], v, scope);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const resolved = await evaluate(v[key], scope);
    if (resolved !== NO_VALUE) out[key] = resolved;
  }
  return out;
}

/** A string (or number) argument, evaluated. */
async function text(value: unknown, scope: IntrinsicScope, whole: unknown): Promise<string> {
  const v = await evaluate(value, scope);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Unresolved(written(whole), 'takes text here');
}

/** A list argument, evaluated. */
async function list(value: unknown, scope: IntrinsicScope, whole: unknown): Promise<unknown[]> {
  const v = await evaluate(value, scope);
  if (Array.isArray(v)) return v;
  throw new Unresolved(written(whole), 'takes a list here');
}

/** The arguments of a function that takes a list of `n` or more. */
async function args(value: unknown, n: number, scope: IntrinsicScope, whole: unknown): Promise<unknown[]> {
  const v = await scope.expand(value);
  if (!Array.isArray(v) || v.length < n) throw new Unresolved(written(whole), `takes a list of ${n} arguments`);
  return v;
}

async function intrinsic(fn: string, arg: unknown, whole: unknown, scope: IntrinsicScope): Promise<unknown> {
  switch (fn) {
    case 'Ref':
      return ref(await text(arg, scope, whole), scope, whole);
    case 'Fn::Sub':
      return sub(arg, scope, whole);
    case 'Fn::Join': {
      const [delimiter, items] = await args(arg, 2, scope, whole);
      const parts = await list(items, scope, whole);
      return parts.map((p) => (typeof p === 'object' ? written(p) : String(p))).join(await text(delimiter, scope, whole));
    }
    case 'Fn::Select': {
      const [index, items] = await args(arg, 2, scope, whole);
      const picked = (await list(items, scope, whole))[Number(await text(index, scope, whole))];
      if (picked === undefined) throw new Unresolved(written(whole), 'selects past the end of its list');
      return picked;
    }
    case 'Fn::Split': {
      const [delimiter, source] = await args(arg, 2, scope, whole);
      return (await text(source, scope, whole)).split(await text(delimiter, scope, whole));
    }
    case 'Fn::FindInMap':
      return findInMap(await args(arg, 3, scope, whole), scope, whole);
    case 'Fn::If': {
      const [name, whenTrue, whenFalse] = await args(arg, 3, scope, whole);
      return evaluate((await condition(await text(name, scope, whole), scope)) ? whenTrue : whenFalse, scope);
    }
    default:
      throw new Unresolved(
        written(whole),
        fn === 'Fn::GetAtt' || fn === 'Fn::ImportValue' ? atDeploy : `(${fn}) is not evaluated by this reader`,
      );
  }
}

async function ref(name: string, scope: IntrinsicScope, whole: unknown): Promise<unknown> {
  if (name === 'AWS::NoValue') return NO_VALUE;
  const passed = scope.parameters[name];
  if (passed !== undefined) return passed;
  if (name.startsWith('AWS::')) {
    const fixed = await scope.pseudo(name);
    if (fixed !== undefined) return fixed;
    throw new Unresolved(written(whole), `${atDeploy}; pass parameters: { '${name}': '...' }`);
  }
  const declared = (await scope.section('Parameters'))[name];
  if (declared !== undefined) {
    const { Default: fallback, Type: type } = isPlainObject(declared) ? declared : {};
    if (fallback === undefined)
      throw new Unresolved(written(whole), `parameter ${name} has no Default; pass parameters: { ${name}: '...' }`);
    const value = await evaluate(fallback, scope);
    return typeof type === 'string' && /CommaDelimitedList|^List</.test(type) && typeof value === 'string' ? value.split(',') : value;
  }
  if (scope.resourceIds.has(name)) throw new Unresolved(written(whole), `is the physical id of resource ${name}, which ${atDeploy}`);
  throw new Unresolved(written(whole), `names no parameter or resource of the template; pass parameters: { '${name}': '...' }`);
}

/** `Fn::Sub`: `${Name}` is a variable of its map or a `Ref`; `${Name.Attr}` a `Fn::GetAtt`; `${!Text}` is `${Text}`. */
async function sub(arg: unknown, scope: IntrinsicScope, whole: unknown): Promise<string> {
  const v = await scope.expand(arg);
  const [template, names] = Array.isArray(v) ? v : [v, {}];
  if (typeof template !== 'string' || !isPlainObject(names)) throw new Unresolved(written(whole), 'takes a string, or a string and a map');
  let out = '';
  let from = 0;
  for (const m of template.matchAll(/\$\{([^}]*)\}/g)) {
    const [all, name = ''] = m;
    out += template.slice(from, m.index);
    from = m.index + all.length;
    if (name.startsWith('!')) out += `\${${name.slice(1)}}`;
    else if (Object.hasOwn(names, name)) out += await text(names[name], scope, whole);
    else if (name.includes('.')) throw new Unresolved(written(whole), `\${${name}} is an attribute of a resource, which ${atDeploy}`);
    else out += String(await ref(name.trim(), scope, whole));
  }
  return out + template.slice(from);
}

async function findInMap(arg: unknown[], scope: IntrinsicScope, whole: unknown): Promise<unknown> {
  const [map, top, second] = await Promise.all(arg.slice(0, 3).map((a) => text(a, scope, whole)));
  const mapping = (await scope.section('Mappings'))[map ?? ''];
  const level = isPlainObject(mapping) ? await scope.expand(mapping[top ?? '']) : undefined;
  const found = isPlainObject(level) ? level[second ?? ''] : undefined;
  if (found === undefined) throw new Unresolved(written(whole), `Mappings has no ${map}.${top}.${second}`);
  return evaluate(found, scope);
}

/** The named condition of the template's `Conditions`. */
async function condition(name: string, scope: IntrinsicScope, seen: readonly string[] = []): Promise<boolean> {
  if (seen.includes(name)) throw new Unresolved(`Condition ${name}`, `refers to itself (${[...seen, name].join(' -> ')})`);
  const declared = (await scope.section('Conditions'))[name];
  if (declared === undefined) throw new Unresolved(`Condition ${name}`, "is not in the template's Conditions");
  return truth(declared, scope, [...seen, name]);
}

/** A condition function (`Fn::Equals`, `Fn::Not`, `Fn::And`, `Fn::Or`, `Condition`). */
async function truth(value: unknown, scope: IntrinsicScope, seen: readonly string[]): Promise<boolean> {
  const v = await scope.expand(value);
  const [fn, arg] = isPlainObject(v) && Object.keys(v).length === 1 ? (Object.entries(v)[0] ?? []) : [];
  if (fn === 'Condition') return condition(await text(arg, scope, v), scope, seen);
  if (fn === 'Fn::Equals') {
    const [a, b] = await args(arg, 2, scope, v);
    return (await text(a, scope, v)) === (await text(b, scope, v));
  }
  const operands = fn === 'Fn::Not' || fn === 'Fn::And' || fn === 'Fn::Or' ? await args(arg, 1, scope, v) : undefined;
  if (operands === undefined) throw new Unresolved(written(v), 'is not a condition function');
  const values: boolean[] = [];
  for (const operand of operands) values.push(await truth(operand, scope, seen));
  if (fn === 'Fn::Not') return !values[0];
  return fn === 'Fn::And' ? values.every(Boolean) : values.some(Boolean);
}

/** Whether the resource's `Condition` (a name in `Conditions`) holds; a resource without one always exists. */
export async function resourceExists(conditionName: unknown, scope: IntrinsicScope): Promise<boolean> {
  const name = await scope.expand(conditionName);
  if (name === undefined) return true;
  if (typeof name !== 'string') throw new Unresolved(written(name), 'is not the name of a condition');
  return condition(name, scope);
}
