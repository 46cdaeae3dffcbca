/**
 * Every run's report goes out one way, whatever its kind: the text (or JSON)
 * on stdout, and its sections and charts into the Markdown report.
 */
import { writeProcessDocs } from '../docs.js';
import { writeLambdaDocs } from '../lambda/docs.js';
import { formatLambdaText } from '../lambda/text.js';
import { formatProcessText } from '../report.js';
import type { BenchReport } from '../results.js';

/** The report for stdout: JSON as it is, or the text for people. */
export function formatReport(report: BenchReport, json: boolean): string {
  if (json) return `${JSON.stringify(report, null, 2)}\n`;
  return report.kind === 'process' ? formatProcessText(report) : formatLambdaText(report);
}

/** Writes the run's sections (and charts) into the Markdown report at `path`; returns the other files written. */
export async function writeReport(path: string, report: BenchReport): Promise<string[]> {
  if (report.kind === 'lambda') return writeLambdaDocs(path, report);
  writeProcessDocs(path, report);
  return [];
}
