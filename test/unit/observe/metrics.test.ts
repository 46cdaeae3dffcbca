/**
 * The pure EMF builder: every outcome kind has its metric, the document has
 * the shape CloudWatch's EMF specification asks for, and names are checked.
 */
import { describe, expect, it } from 'vitest';
import { emfDocument, emfLimits, invalidDimension, invalidNamespace, metricData, outcomeMetricNames } from '../../../src/observe/emf.js';
import { summarize, type RecordOutcomeKind } from '../../../src/engine/outcomes.js';

const counts: Record<RecordOutcomeKind, number> = {
  completed: 1,
  duplicate: 2,
  'in-progress': 3,
  failed: 4,
  invalid: 5,
  'lease-lost': 6,
  'not-started': 7,
  conflict: 8,
  'dead-lettered': 9,
};

describe('metricData', () => {
  it('counts every outcome kind under its own metric, plus the total, retried, replays and duration', () => {
    const data = metricData({ counts, retried: 9, replays: 10, durationMs: 11.5 });
    const byName = Object.fromEntries(data.map((d) => [d.name, d]));
    for (const [kind, name] of Object.entries(outcomeMetricNames)) {
      expect(byName[name]).toEqual({ name, unit: 'Count', value: counts[kind as RecordOutcomeKind] });
    }
    expect(byName.Records?.value).toBe(45);
    expect(byName.RecordsRetried?.value).toBe(9);
    expect(byName.Replays?.value).toBe(10);
    expect(byName.Duration).toEqual({ name: 'Duration', unit: 'Milliseconds', value: 11.5 });
    expect(new Set(data.map((d) => d.name)).size).toBe(data.length);
    expect(data.length).toBeLessThanOrEqual(emfLimits.metrics);
  });

  it('publishes zeros, so that duplicates / records is defined for every batch', () => {
    const data = metricData({ counts: summarize([]), retried: 0, replays: 0, durationMs: 0 });
    expect(data.map((d) => d.value).every((v) => v === 0)).toBe(true);
    expect(data.map((d) => d.name)).toContain('RecordsDuplicate');
  });
});

describe('emfDocument', () => {
  it('has the EMF shape: _aws metadata with one directive, dimensions and metrics as members of the root', () => {
    const data = metricData({ counts, retried: 0, replays: 0, durationMs: 5 });
    const doc = emfDocument(data, 'EffectivelyOnce', { Service: 'shop', Consumer: 'payments', Source: 'sqs' }, 1_700_000_000_000);
    expect(Object.keys(doc._aws).sort()).toEqual(['CloudWatchMetrics', 'Timestamp']);
    expect(doc._aws.Timestamp).toBe(1_700_000_000_000);
    const [directive] = doc._aws.CloudWatchMetrics;
    expect(Object.keys(directive).sort()).toEqual(['Dimensions', 'Metrics', 'Namespace']);
    expect(directive.Namespace).toBe('EffectivelyOnce');
    expect(directive.Dimensions).toEqual([['Service', 'Consumer', 'Source']]);
    // Every referenced dimension is a string member; every metric a number member.
    for (const name of directive.Dimensions[0]) expect(typeof doc[name]).toBe('string');
    for (const m of directive.Metrics) {
      expect(typeof doc[m.Name]).toBe('number');
      expect(['Count', 'Milliseconds']).toContain(m.Unit);
    }
    expect(doc.RecordsLeaseLost).toBe(6);
    expect(doc.Consumer).toBe('payments');
    // It survives JSON as one line.
    expect(JSON.stringify(doc)).not.toContain('\n');
  });

  it('cuts a dimension value to the longest CloudWatch takes', () => {
    const doc = emfDocument([], 'N', { Consumer: 'c'.repeat(2000) }, 0);
    expect(String(doc.Consumer).length).toBe(emfLimits.dimensionValueLength);
  });
});

describe('names', () => {
  it('rejects namespaces CloudWatch refuses', () => {
    expect(invalidNamespace('EffectivelyOnce')).toBeUndefined();
    expect(invalidNamespace('')).toMatch(/characters/);
    expect(invalidNamespace('x'.repeat(256))).toMatch(/characters/);
    expect(invalidNamespace('AWS/Lambda')).toMatch(/reserved/);
    expect(invalidNamespace('Ünïcode')).toMatch(/ASCII/);
  });

  it('rejects dimensions CloudWatch refuses', () => {
    expect(invalidDimension('Service', 'orders')).toBeUndefined();
    expect(invalidDimension('', 'x')).toMatch(/name/);
    expect(invalidDimension(':Service', 'x')).toMatch(/":"/);
    expect(invalidDimension('_aws', 'x')).toMatch(/_aws/);
    expect(invalidDimension('Service', '')).toMatch(/value/);
    expect(invalidDimension('Service', '   ')).toMatch(/value/);
  });
});
