/**
 * Reads a template file, JSON or YAML, with CloudFormation's short forms (`!Ref X`, `!Sub ...`, `!GetAtt A.B`, ...)
 * turned into their long forms (`{ Ref: 'X' }`, `{ 'Fn::Sub': ... }`), and YAML anchors and merge keys (`<<: *x`)
 * applied, as CloudFormation and the Serverless Framework read them. The `yaml` package is an optional peer: it is
 * imported only when a YAML file is read, so a JSON template or a template object needs nothing more.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Document } from 'yaml';
import { TemplateError } from './errors.js';

type YamlModule = typeof import('yaml');

let yamlModule: Promise<YamlModule> | undefined;

/** The `yaml` package, imported once; a `TemplateError` that says to install it when it is not there. */
function loadYaml(template: string): Promise<YamlModule> {
  yamlModule ??= import('yaml');
  return yamlModule.catch((err: unknown) => {
    yamlModule = undefined;
    throw new TemplateError(
      `Reading ${template} (YAML) needs the \`yaml\` package: run \`npm install -D yaml\`, or pass the template as JSON or as an object.`,
      { template, cause: err },
    );
  });
}

/** CloudFormation's short form `!Name` is `Fn::Name`, but for `!Ref` and `!Condition`. */
const longName = (name: string): string => (name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`);

/** Replaces every node tagged `!Name` by the map `{ <long name>: node }` (`!GetAtt A.B` by `{ 'Fn::GetAtt': ['A', 'B'] }`). */
function expandShortForms(yaml: YamlModule, doc: Document.Parsed): void {
  yaml.visit(doc, {
    Node(_key, node) {
      const tag = node.tag;
      // `!!str` and other YAML tags are `tag:yaml.org,2002:...` once parsed; only local `!Name` tags are CloudFormation's.
      if (tag === undefined || !/^![A-Za-z][A-Za-z0-9]*$/.test(tag)) return undefined;
      delete node.tag;
      const name = tag.slice(1);
      let value: unknown = node;
      if (name === 'GetAtt' && yaml.isScalar(node) && typeof node.value === 'string') {
        const dot = node.value.indexOf('.');
        value = doc.createNode(dot === -1 ? [node.value] : [node.value.slice(0, dot), node.value.slice(dot + 1)]);
      }
      const map = new yaml.YAMLMap(doc.schema);
      map.items.push(new yaml.Pair(new yaml.Scalar(longName(name)), value));
      return map;
    },
  });
}

/** Parses `text` (the file `file`) as YAML with CloudFormation's tags. */
export async function parseYaml(text: string, file: string): Promise<unknown> {
  const yaml = await loadYaml(file);
  // Unknown tags are warnings, not errors: they are CloudFormation's, expanded below.
  const doc = yaml.parseDocument(text, { merge: true, prettyErrors: true });
  const [error] = doc.errors;
  if (error !== undefined) throw new TemplateError(`${file} is not valid YAML: ${error.message}`, { template: file, cause: error });
  expandShortForms(yaml, doc);
  return doc.toJS({ maxAliasCount: -1 });
}

/** The parsed content of a `.json`, `.yml` or `.yaml` file; `undefined` when there is no such file. */
export async function readTemplateFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TemplateError(`Cannot read ${path}: ${(err as Error).message}`, { template: path, cause: err });
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new TemplateError(`${path} is not valid JSON: ${(err as Error).message}`, { template: path, cause: err });
    }
  }
  if (ext === '.yml' || ext === '.yaml' || ext === '.template' || ext === '') return parseYaml(text, path);
  throw new TemplateError(
    `${path}: only JSON and YAML templates are read (a serverless.ts or .js configuration: import it and pass the object it exports).`,
    { template: path },
  );
}
