/**
 * The machine and versions every bench report fixture of the unit tests
 * names (none of their figures matter to what those tests check, but the
 * loads, which the sweep's text prints).
 */
import type { Machine, Versions } from '../../bench/environment.js';

export function fixtureMachine(loadBefore: number, loadAfter: number): Machine {
  return { cpus: 2, cpuModel: 'cpu', memoryGb: 4, os: 'linux', loadBefore, loadAfter };
}

export const fixtureVersions: Versions = {
  node: 'v22',
  ours: '0.2.0',
  powertoolsIdempotency: '2.35.0',
  powertoolsBatch: '2.35.0',
  awsSdk: 'sdk',
  middy: '7',
  dynamodbLocal: 'jar',
};
