/**
 * One template, read: a CloudFormation/SAM template (top-level `Resources`) or a serverless.yml (`resources`,
 * one object or a list of them, with `extensions`), as its resources by logical id and the scope its intrinsic
 * functions are evaluated in. Nothing is resolved here that a table does not ask for.
 */
import { resolve as resolvePath } from 'node:path';
import { isPlainObject } from '../../engine/options.js';
import { TemplateError } from './errors.js';
import type { IntrinsicScope } from './intrinsics.js';
import { readTemplateFile } from './load.js';
import { folderOf, ServerlessVariables } from './serverless.js';

/** What the test passed to resolve the template with. */
export interface TemplateInputs {
  readonly template: string | Readonly<Record<string, unknown>>;
  readonly stage: string | undefined;
  readonly parameters: Readonly<Record<string, string>>;
  readonly variables: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A template's resources by logical id (each as written: a serverless.yml's may still be `${file(...)}`), and its scope. */
export interface ReadTemplate {
  /** The path as given, or `template object`. */
  readonly label: string;
  readonly resources: Readonly<Record<string, unknown>>;
  /** serverless.yml's `resources.extensions` (their `Properties` are laid over the resource's), else `{}`. */
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly scope: IntrinsicScope;
}

const SECTIONS = ['Resources', 'extensions', 'Parameters', 'Mappings', 'Conditions'] as const;
type Section = (typeof SECTIONS)[number];

/** Reads the template the test named and tells CloudFormation from serverless.yml. */
export async function readTemplate(inputs: TemplateInputs): Promise<ReadTemplate> {
  const { template } = inputs;
  const label = typeof template === 'string' ? template : 'template object';
  const content = typeof template === 'string' ? await readTemplateFile(resolvePath(template)) : template;
  if (content === undefined) throw new TemplateError(`Template ${template} not found (from ${process.cwd()}).`, { template: label });
  if (!isPlainObject(content)) throw new TemplateError(`${label} is not a template: it holds no object.`, { template: label });
  if (isPlainObject(content['Resources'])) return cloudFormation(label, content, inputs);
  if (content['resources'] !== undefined || content['service'] !== undefined) {
    return serverless(label, content, inputs, folderOf(typeof template === 'string' ? template : undefined));
  }
  throw new TemplateError(`${label} has neither Resources (CloudFormation, SAM) nor resources (serverless.yml).`, { template: label });
}

function cloudFormation(label: string, content: Record<string, unknown>, inputs: TemplateInputs): ReadTemplate {
  const resources = content['Resources'] as Record<string, unknown>;
  const section = (name: Section): Record<string, unknown> => {
    const value = content[name];
    return isPlainObject(value) ? value : {};
  };
  return {
    label,
    resources,
    extensions: {},
    scope: {
      expand: async (value) => value,
      section: async (name) => section(name),
      pseudo: async () => undefined,
      parameters: inputs.parameters,
      resourceIds: new Set(Object.keys(resources)),
    },
  };
}

async function serverless(label: string, config: Record<string, unknown>, inputs: TemplateInputs, baseDir: string): Promise<ReadTemplate> {
  const vars = new ServerlessVariables({ config, baseDir, stage: inputs.stage, variables: inputs.variables, env: inputs.env });
  // `resources` may be a list of objects (often `${file(...)}`s), merged section by section as serverless does.
  const block = await vars.expand(config['resources']);
  const parts = Array.isArray(block) ? block : [block];
  const merged = Object.fromEntries(SECTIONS.map((s) => [s, {} as Record<string, unknown>])) as Record<Section, Record<string, unknown>>;
  for (const raw of parts) {
    const part = await vars.expand(raw);
    if (part === undefined || part === null) continue;
    if (!isPlainObject(part)) throw new TemplateError(`${label}: resources holds something that is not an object.`, { template: label });
    for (const name of SECTIONS) {
      const section = await vars.expand(part[name]);
      if (isPlainObject(section)) Object.assign(merged[name], section);
    }
  }
  return {
    label,
    resources: merged.Resources,
    extensions: merged.extensions,
    scope: {
      expand: (value) => vars.expand(value),
      section: async (name) => merged[name],
      pseudo: (name) => serverlessPseudo(name, vars),
      parameters: inputs.parameters,
      resourceIds: new Set(Object.keys(merged.Resources)),
    },
  };
}

/** The pseudo parameters serverless fixes: the stack is `<service>-<stage>` unless `provider.stackName`, in its region. */
async function serverlessPseudo(name: string, vars: ServerlessVariables): Promise<string | undefined> {
  if (name === 'AWS::Region') return vars.region();
  if (name !== 'AWS::StackName') return undefined;
  const stackName = await vars.self('provider.stackName');
  if (typeof stackName === 'string') return stackName;
  const service = await vars.self('service');
  const serviceName = isPlainObject(service) ? await vars.expand(service['name']) : service;
  return `${String(serviceName)}-${await vars.stage()}`;
}
