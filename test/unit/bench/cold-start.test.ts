import { describe, expect, it } from 'vitest';
import { parseColdResult } from '../../../bench/cold-start/protocol.js';
import { partName, sdkSteps } from '../../../bench/cold-start.js';
import { coldStartSizeTable } from '../../../bench/lambda/report.js';
import { checkLambdaTargets } from '../../../bench/lambda/targets.js';
import { bundleTable, importStepsTable } from '../../../bench/report.js';
import type { ColdStartFigures, ColdStartPair, ColdStartSideFigures, HandlerColdStart } from '../../../bench/results.js';

function handler(side: 'ours' | 'powertools', steps: Array<[string, number]>): HandlerColdStart {
  return {
    side,
    entry: `bench/cold-start/${side}-handler.ts`,
    bytes: side === 'ours' ? 62_400 : 52_200,
    gzipBytes: 20_000,
    parts: [{ name: 'src/batch', bytes: 9000 }],
    externals: steps.map(([m]) => m).filter((m) => m !== 'bundle'),
    importMs: steps.reduce((sum, [, ms]) => sum + ms, 0),
    libraryImportMs: steps.at(-1)?.[1] ?? Number.NaN,
    steps: steps.map(([module, ms]) => ({ module, ms, samples: [ms] })),
  };
}

function side(importMs: number, firstBatchMs: number): ColdStartSideFigures {
  return { initMs: importMs + firstBatchMs, importMs, firstBatchMs, bootMs: 40, cpuMs: importMs, initSamples: [importMs + firstBatchMs] };
}

function pair(ours: ColdStartSideFigures, powertools: ColdStartSideFigures): ColdStartPair {
  return { ours, powertools, initRatio: ours.initMs / powertools.initMs };
}

const figures: ColdStartFigures = {
  esbuild: '0.25',
  build: 'esbuild bundle',
  samples: 9,
  fullCpu: 'one vCPU',
  ours: handler('ours', [
    ['@aws-sdk/client-dynamodb', 75],
    ['@aws-sdk/lib-dynamodb', 6],
    ['@aws-sdk/util-dynamodb', 1],
    ['bundle', 5],
  ]),
  powertools: handler('powertools', [
    ['@aws-sdk/client-dynamodb', 74],
    ['@aws-sdk/util-dynamodb', 2],
    ['bundle', 4],
  ]),
  sizes: [
    { memoryMb: 256, samples: 9, onDemand: pair(side(90, 300), side(85, 400)), provisioned: pair(side(700, 300), side(650, 400)) },
    { memoryMb: 1769, samples: 9, onDemand: pair(side(90, 130), side(85, 100)), provisioned: pair(side(95, 130), side(90, 100)) },
  ],
};

describe('the cold start', () => {
  it('imports the low-level client first, then the other SDK modules a bundle leaves to the runtime', () => {
    expect(sdkSteps(['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb', 'node:crypto', '@aws-sdk/util-dynamodb'])).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/util-dynamodb',
    ]);
  });

  it('shows each import step for both sides, "-" where a side does not load the module', () => {
    const t = importStepsTable(figures);
    expect(t.rows.map((r) => r[0])).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/util-dynamodb',
      'the handler bundle (its top level: clients and middleware built)',
      'all of it',
    ]);
    expect(t.rows[1]).toEqual(['@aws-sdk/lib-dynamodb', '6.0', '-']);
    expect(t.rows[4]).toEqual(['all of it', '87.0', '80.0']);
    expect(bundleTable(figures).rows[0]?.slice(1, 5)).toEqual(['62.4 kB', '20.0 kB', '87.0', '5.0']);
  });

  it('shows each size on demand and provisioned, with the ratio to Powertools', () => {
    const row = coldStartSizeTable(figures).rows[0];
    expect(row?.slice(0, 7)).toEqual(['256 MB', '390', '485', '0.80x', '1000', '1050', '0.95x']);
    expect(row?.[7]).toBe('90 + 300');
  });

  it('judges on demand against 1.0x and provisioned against 1.05x, at the worst size', () => {
    const byName = new Map(checkLambdaTargets([], [], figures).map((c) => [c.target, c]));
    const onDemand = [...byName.values()].find((c) => c.target.startsWith('every size, on demand'));
    const provisioned = [...byName.values()].find((c) => c.target.startsWith('every size, provisioned'));
    expect(onDemand).toMatchObject({ measured: 'highest 1.19x at 1769 MB', met: false });
    expect(provisioned).toMatchObject({ measured: 'highest 1.18x at 1769 MB', met: false });
  });

  it("reads the runner's result line among the handler's own output, and names bundle parts by package or folder", () => {
    expect(parseColdResult('paid 1\n@@eo-cold {"bootMs":1,"importMs":2,"firstBatchMs":3,"cpuMs":4,"failures":0}\n')).toEqual({
      bootMs: 1,
      importMs: 2,
      firstBatchMs: 3,
      cpuMs: 4,
      failures: 0,
    });
    expect(parseColdResult('nothing')).toBeUndefined();
    expect(partName('node_modules/@middy/core/index.js')).toBe('@middy/core');
    expect(partName('src/batch/admit.ts')).toBe('src/batch');
  });
});
