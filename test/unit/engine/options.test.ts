import { describe, expect, it } from 'vitest';
import { checkOptions, hasMethods, is, resolveOptions, type RulesOf } from '../../../src/engine/options.js';

const rules = { store: { ...hasMethods('a store', 'claim'), required: true }, name: is.nonEmptyString, mode: is.oneOf('a', 'b') };

describe('checkOptions', () => {
  it('accepts valid options and treats undefined as absent', () => {
    expect(() => checkOptions('x', { store: { claim: () => 1 }, name: undefined }, rules)).not.toThrow();
  });
  it('names an unknown option and lists the known ones', () => {
    expect(() => checkOptions('x', { store: { claim: () => 1 }, nmae: 'a' }, rules)).toThrow(
      /x: unknown option "nmae" \(known options: store, name, mode\)/,
    );
  });
  it('names a missing required option', () => {
    expect(() => checkOptions('x', {}, rules)).toThrow(/option "store" is required/);
  });
  it('names a wrongly typed option with what was expected and what was given', () => {
    expect(() => checkOptions('x', { store: {}, mode: 'c' }, rules)).toThrow(TypeError);
    expect(() => checkOptions('x', { store: { claim: () => 1 }, mode: 'c' }, rules)).toThrow(
      /option "mode" must be one of "a", "b", got "c"/,
    );
  });
  it('rejects non-object options', () => {
    expect(() => checkOptions('x', null, rules)).toThrow(/options must be an object/);
    expect(() => checkOptions('x', [], rules)).toThrow(/options must be an object/);
  });
});

interface Opts {
  readonly name: string;
  readonly mode?: 'a' | 'b';
  readonly bounds?: Partial<{ readonly min: number; readonly max: number }>;
  readonly label?: string;
  readonly clock?: { now(): number };
}
const optsRules = {
  name: { ...is.nonEmptyString, required: true },
  mode: is.oneOf('a', 'b'),
  bounds: { ...is.object, partial: true },
  label: is.nonEmptyString,
  clock: is.object,
} satisfies RulesOf<Opts>;
const optsDefaults = { mode: 'a' as 'a' | 'b', bounds: { min: 1, max: 9 }, clock: { now: () => 0 } };

describe('resolveOptions', () => {
  it('checks, then merges the defaults once: undefined keeps a default, nested objects merge key by key', () => {
    const resolved = resolveOptions<Opts, typeof optsDefaults>(
      'x',
      { name: 'n', mode: undefined, bounds: { max: 5 } } as unknown as Opts,
      optsRules,
      optsDefaults,
    );
    expect(resolved).toEqual({ name: 'n', mode: 'a', bounds: { min: 1, max: 5 }, clock: optsDefaults.clock });
    expect(
      resolveOptions<Opts, typeof optsDefaults>('x', { name: 'n', bounds: { min: undefined } } as unknown as Opts, optsRules, optsDefaults)
        .bounds,
    ).toEqual({ min: 1, max: 9 });
    expect(optsDefaults.bounds).toEqual({ min: 1, max: 9 }); // the defaults object is never written to
    // An object option not marked partial (a clock, a store) replaces its default whole, prototype and all.
    class Clock {
      now(): number {
        return 42;
      }
    }
    const clock = new Clock();
    expect(resolveOptions<Opts, typeof optsDefaults>('x', { name: 'n', clock }, optsRules, optsDefaults).clock).toBe(clock);
  });

  it('refuses a wrong option before merging anything', () => {
    expect(() => resolveOptions('x', { name: 'n', mode: 'c' } as unknown as Opts, optsRules, optsDefaults)).toThrow(/option "mode"/);
    expect(() => resolveOptions('x', { name: 'n', nmae: 1 } as unknown as Opts, optsRules, optsDefaults)).toThrow(/unknown option "nmae"/);
  });

  it('types the rules against every key of the options interface (compile-time: a missing rule is an error)', () => {
    // @ts-expect-error: no rule for "label"
    const missing: RulesOf<Opts> = { name: is.nonEmptyString, mode: is.oneOf('a', 'b'), bounds: is.object, clock: is.object };
    expect(Object.keys(missing)).not.toContain('label');
  });
});
