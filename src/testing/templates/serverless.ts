/**
 * The Serverless Framework's variables (`${self:custom.x}`, `${sls:stage}`, `${opt:stage, 'dev'}`,
 * `${param:x}`, `${env:X}`, `${file(./f.json):key}`, `${aws:region}`, nested and with fallbacks), resolved as
 * `serverless package` would with the stage and values a test passes, and only in the values asked for: a
 * `${ssm:...}` in a function's environment never stops a table from being made. A value only AWS knows (`ssm`,
 * `cf`, `s3`, `aws:accountId`, ...) is refused unless the test passes it in `variables`, even with a fallback,
 * because a deploy would use AWS's value, not the fallback.
 */
import { dirname, resolve as resolvePath } from 'node:path';
import { isPlainObject } from '../../engine/options.js';
import { Unresolved } from './errors.js';
import { readTemplateFile } from './load.js';

/** What a serverless.yml's variables are resolved from. */
export interface ServerlessInputs {
  /** The whole configuration, as parsed. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The folder `${file(...)}` paths are relative to. */
  readonly baseDir: string;
  /** `--stage`; absent: `provider.stage`, else `dev`. */
  readonly stage: string | undefined;
  /** Values by source and address as written: `'opt:region'`, `'param:prefix'`, `'env:X'`, `'ssm:/a/b'`. */
  readonly variables: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Where a variable starts (`${`) and ends (after its `}`), with the text between. */
interface Found {
  readonly start: number;
  readonly end: number;
  readonly body: string;
}

/** A variable of ours starts with a source type (`self:`, `file(`); `${AWS::Region}` and `${Name}` are `Fn::Sub`'s. */
const SOURCE = /^([a-z][a-zA-Z0-9]*)(\(([^)]*)\))?:?/;

/** The index after the `}` that closes the `${` at `start`, skipping quoted text and nested `${...}`. */
function closing(text: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if ((c === "'" || c === '"') && depth > 0) quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** The variables of ours in `text`, outermost only. */
export function findVariables(text: string): Found[] {
  const found: Found[] = [];
  for (let at = text.indexOf('${'); at !== -1; at = text.indexOf('${', at + 2)) {
    const end = closing(text, at + 1);
    if (end === -1) break;
    const body = text.slice(at + 2, end - 1);
    if (/^[a-z][a-zA-Z0-9]*[:(]/.test(body.trim())) {
      found.push({ start: at, end, body });
      at = end - 2;
    }
  }
  return found;
}

/** `body` split at its top-level commas: the source, then its fallbacks. */
function alternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '{' || c === '(') depth++;
    else if (c === '}' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(body.slice(from).trim());
  return parts;
}

/** A literal fallback (`'dev'`, `"dev"`, `3`, `true`, `null`), or `undefined` when `text` is not one. */
function literal(text: string): { value: unknown } | undefined {
  if (/^'[^']*'$|^"[^"]*"$/.test(text)) return { value: text.slice(1, -1) };
  if (/^-?\d+(\.\d+)?$/.test(text)) return { value: Number(text) };
  if (text === 'true' || text === 'false') return { value: text === 'true' };
  if (text === 'null') return { value: null };
  return undefined;
}

/** The child of `value` at a dotted `address`, or `undefined`. */
async function walk(value: unknown, address: string, expand: (v: unknown) => Promise<unknown>): Promise<unknown> {
  let node = await expand(value);
  for (const key of address === '' ? [] : address.split('.')) {
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = await expand((node as Record<string, unknown>)[key]);
  }
  return node;
}

/** Resolves the variables of a serverless.yml: {@link ServerlessVariables.expand} is the one entry. */
export class ServerlessVariables {
  private readonly resolving: string[] = [];

  constructor(private readonly inputs: ServerlessInputs) {}

  /** The stage, as `${sls:stage}` gives it: `--stage`, else `provider.stage`, else `dev`. */
  async stage(): Promise<string> {
    if (this.inputs.stage !== undefined) return this.inputs.stage;
    const configured = await this.self('provider.stage');
    return configured === undefined || configured === null ? 'dev' : String(configured);
  }

  /** The region, as `${aws:region}` gives it: `provider.region`, else `us-east-1` (`--region` is `variables['opt:region']`). */
  async region(): Promise<string> {
    const configured = await this.self('provider.region');
    return configured === undefined || configured === null ? 'us-east-1' : String(configured);
  }

  /** The value at `address` of the configuration (`provider.stage`), its variables resolved as far as it is walked. */
  self(address: string): Promise<unknown> {
    return walk(this.inputs.config, address, (v) => this.expand(v));
  }

  /** `value` with the variables of a string resolved (objects and arrays are returned as they are, for the caller to walk). */
  async expand(value: unknown): Promise<unknown> {
    if (typeof value !== 'string') return value;
    const found = findVariables(value);
    const first = found[0];
    if (first === undefined) return value;
    if (found.length === 1 && first.start === 0 && first.end === value.length) return this.expand(await this.variable(value));
    let text = '';
    let from = 0;
    for (const v of found) {
      const part = await this.expand(await this.variable(value.slice(v.start, v.end)));
      if (typeof part === 'object' && part !== null)
        throw new Unresolved(value, `${value.slice(v.start, v.end)} is not text, so it cannot be part of a string`);
      text += value.slice(from, v.start) + String(part);
      from = v.end;
    }
    return text + value.slice(from);
  }

  /** One `${...}`: its source, else its fallbacks in order. */
  private async variable(text: string): Promise<unknown> {
    if (this.resolving.includes(text)) throw new Unresolved(text, `refers to itself (${[...this.resolving, text].join(' -> ')})`);
    this.resolving.push(text);
    try {
      for (const option of alternatives(text.slice(2, -1))) {
        const value = await this.alternative(option);
        if (value !== undefined && value !== null) return value;
      }
      throw new Unresolved(text, notFound(alternatives(text.slice(2, -1))[0] ?? ''));
    } finally {
      this.resolving.pop();
    }
  }

  private async alternative(option: string): Promise<unknown> {
    const fixed = literal(option);
    if (fixed !== undefined) return fixed.value;
    if (option.startsWith('${')) return this.expand(option);
    const match = SOURCE.exec(option);
    if (match === null) throw new Unresolved(`\${${option}}`, 'is not a variable this reader knows');
    const type = match[1] ?? '';
    const param = match[3] === undefined ? undefined : String(await this.expand(match[3]));
    const address = String(await this.expand(option.slice(match[0].length)));
    const given = this.inputs.variables[option] ?? this.inputs.variables[`${type}:${address}`];
    if (given !== undefined) return given;
    return this.source(type, param, address, option);
  }

  private async source(type: string, param: string | undefined, address: string, option: string): Promise<unknown> {
    switch (type) {
      case 'self':
        return this.self(address);
      case 'opt':
        return address === 'stage' ? this.inputs.stage : undefined;
      case 'sls':
        if (address === 'stage') return this.stage();
        break;
      case 'env':
        return this.inputs.env[address];
      case 'param':
        return this.param(address);
      case 'file':
        return this.file(param ?? '', address);
      case 'aws':
        if (address === 'region') return this.region();
        break;
    }
    throw new Unresolved(`\${${option}}`, `is known only when deployed; pass variables: { '${option}': '...' }`);
  }

  /** `${param:name}`: `params.<stage>.name`, else `params.default.name`. */
  private async param(name: string): Promise<unknown> {
    const stage = await this.stage();
    const own = await this.self(`params.${stage}.${name}`);
    return own ?? this.self(`params.default.${name}`);
  }

  /** `${file(path):address}`: a JSON or YAML file next to the configuration. */
  private async file(path: string, address: string): Promise<unknown> {
    const content = await readTemplateFile(resolvePath(this.inputs.baseDir, path));
    return content === undefined ? undefined : walk(content, address, (v) => this.expand(v));
  }
}

/** Why a variable found nothing, and what to pass. */
function notFound(source: string): string {
  if (source.startsWith('env:'))
    return `environment variable ${source.slice(4)} is not set; set it, or pass variables: { '${source}': '...' }`;
  if (source.startsWith('param:')) return `no such param for this stage; pass variables: { '${source}': '...' }`;
  if (source.startsWith('opt:')) return `pass stage (for opt:stage) or variables: { '${source}': '...' }`;
  if (source.startsWith('file(')) return 'the file or the key in it does not exist';
  return 'has no value in the configuration';
}

/** The folder of a template path, for `${file(...)}`. */
export const folderOf = (path: string | undefined): string => (path === undefined ? process.cwd() : dirname(resolvePath(path)));
