/**
 * The Markdown report's sections (`docs/benchmarks.md` by default). Each run
 * writes its sections between marker comments and leaves the rest of the file
 * alone: runs with other settings keep theirs, and the notes written by hand
 * around them stay.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Hand-written notes go below this line; new sections are inserted above it. */
export const NOTES_MARKER = '<!-- bench:notes -->';

const SKELETON = `# Benchmarks

Written by \`npm run bench\` (see [bench/README.md](../bench/README.md)). Each
run replaces its own section; the notes below the sections are kept.

${NOTES_MARKER}
`;

/** The families of sections, in the order they stand in the file: the Lambda-shaped runs first, then the one-process AWS model, then DynamoDB Local. */
const FAMILIES = ['power', 'lmi', 'cost', 'aws'] as const;

/**
 * Where a new section goes: the sweep's (`power`) lead the file, then Lambda
 * Managed Instances (`lmi`), the cost per use case (`cost`), the AWS model's
 * (`aws`), then the DynamoDB Local ones; a new section is inserted above the
 * first section of a later rank.
 */
export function sectionRank(key: string): number {
  const rank = FAMILIES.findIndex((name) => key === name || key.startsWith(`${name}-`));
  return rank === -1 ? FAMILIES.length : rank;
}

/** `existing` with this run's section replaced, or inserted above the first section of a later rank, above the notes, or at the end. */
export function mergeSection(existing: string, section: string, key: string): string {
  const begin = `<!-- bench:begin ${key} -->`;
  const end = `<!-- bench:end ${key} -->`;
  const from = existing.indexOf(begin);
  const to = existing.indexOf(end);
  if (from !== -1 && to > from) return existing.slice(0, from) + section + existing.slice(to + end.length);
  const rank = sectionRank(key);
  const later = [...existing.matchAll(/<!-- bench:begin (\S+) -->/g)].find((m) => sectionRank(m[1] ?? '') > rank);
  if (later?.index !== undefined) return `${existing.slice(0, later.index)}${section}\n\n${existing.slice(later.index)}`;
  const notes = existing.indexOf(NOTES_MARKER);
  if (notes !== -1) return `${existing.slice(0, notes)}${section}\n\n${existing.slice(notes)}`;
  return `${existing.trimEnd()}\n\n${section}\n`;
}

/** Replaces (or inserts) one section of the Markdown report at `path`, creating the file when there is none. */
export function writeSection(path: string, section: string, key: string): void {
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : SKELETON;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, mergeSection(existing, section, key));
}

/** The key's suffix for a duplicate rate other than the default (`-dup-0.01`), none for the default. */
export function dupSuffix(duplicateRate: number, defaultRate: number): string {
  return duplicateRate === defaultRate ? '' : `-dup-${duplicateRate}`;
}
