/**
 * The commented Amazon MSK example of serverless.yml (the `kafkaOrders`
 * function, its role and its mapping's extension, between the
 * `# >>> kafka example` and `# <<< kafka example` lines), uncommented into a
 * copy of the file and packaged offline: it must build, and its event source
 * mapping must keep `FunctionResponseTypes: [ReportBatchItemFailures]`
 * (osls's msk event cannot set it; without it Lambda ignores the partial
 * batch response and retries whole batches).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idsOfType, resource, serverlessPackage, type CfnTemplate } from '../support/cloudformation.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Beside serverless.yml: osls reads a --config from the service directory.
const CONFIG = 'serverless.kafka-example.test.yml';

/** serverless.yml with the example's lines uncommented (`# x` -> `x`; its prose, `## y`, stays a comment). */
function withKafkaExample(yml: string): string {
  let inside = false;
  return yml
    .split('\n')
    .map((line) => {
      if (/^\s*# >>> kafka example/.test(line)) inside = true;
      else if (/^\s*# <<< kafka example/.test(line)) inside = false;
      else if (inside) return line.replace(/^(\s*)# ?/, '$1');
      return line;
    })
    .join('\n');
}

let outDir: string;
let template: CfnTemplate;
let source: string;

beforeAll(async () => {
  source = await readFile(join(root, 'serverless.yml'), 'utf8');
  await writeFile(join(root, CONFIG), withKafkaExample(source));
  outDir = await mkdtemp(join(tmpdir(), 'eo-kafka-package-'));
  template = await serverlessPackage(root, outDir, ['--config', CONFIG]);
}, 300_000);

afterAll(async () => {
  await rm(join(root, CONFIG), { force: true });
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

describe('serverless.yml: the Amazon MSK example', () => {
  it('is there, commented out, in three blocks', () => {
    expect(source.match(/^\s*# >>> kafka example/gm)).toHaveLength(3);
    expect(source.match(/^\s*# <<< kafka example/gm)).toHaveLength(3);
    expect(source).not.toMatch(/^\s+kafkaOrders:/m);
  });

  it('packages, and its Kafka mapping reports batch item failures, on the MSK cluster and topic, with provisioned pollers', () => {
    const msk = idsOfType(template, 'AWS::Lambda::EventSourceMapping').filter((id) =>
      String(resource(template, id).Properties['EventSourceArn']).startsWith('arn:aws:kafka:'),
    );
    expect(msk).toHaveLength(1);
    const mapping = resource(template, msk[0] as string).Properties;
    expect(mapping['FunctionResponseTypes']).toEqual(['ReportBatchItemFailures']);
    expect(mapping['Topics']).toEqual(['orders']);
    expect(mapping['ProvisionedPollerConfig']).toEqual({ MinimumPollers: 1, MaximumPollers: 2 });
    expect(mapping['FunctionName']).toMatchObject({ 'Fn::GetAtt': ['KafkaOrdersLambdaFunction', 'Arn'] });
    // The extension named the mapping osls made, not a new resource without a type.
    expect(idsOfType(template, 'AWS::Lambda::EventSourceMapping')).toContain('KafkaOrdersEventSourceMappingMSKOrdersOrders');
  });

  it('runs the function as its own role, which may write the idempotency table', () => {
    const fn = resource(template, 'KafkaOrdersLambdaFunction').Properties;
    expect(fn['Role']).toEqual({ 'Fn::GetAtt': ['KafkaOrdersRole', 'Arn'] });
    expect(JSON.stringify(resource(template, 'KafkaOrdersRole').Properties)).toContain('dynamodb:PutItem');
  });
});
