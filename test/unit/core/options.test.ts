import { describe, expect, it } from 'vitest';
import { checkOptions, hasMethods, is } from '../../../src/core/options.js';

const rules = { store: { ...hasMethods('a store', 'claim'), required: true }, name: is.nonEmptyString, mode: is.oneOf('a', 'b') };

describe('checkOptions', () => {
  it('accepts valid options and treats undefined as absent', () => {
    expect(() => checkOptions('x', { store: { claim: () => 1 }, name: undefined }, rules)).not.toThrow();
  });
  it('names an unknown option and lists the known ones', () => {
    expect(() => checkOptions('x', { store: { claim: () => 1 }, nmae: 'a' }, rules)).toThrow(/x: unknown option "nmae" \(known options: store, name, mode\)/);
  });
  it('names a missing required option', () => {
    expect(() => checkOptions('x', {}, rules)).toThrow(/option "store" is required/);
  });
  it('names a wrongly typed option with what was expected and what was given', () => {
    expect(() => checkOptions('x', { store: {}, mode: 'c' }, rules)).toThrow(TypeError);
    expect(() => checkOptions('x', { store: { claim: () => 1 }, mode: 'c' }, rules)).toThrow(/option "mode" must be one of "a", "b", got "c"/);
  });
  it('rejects non-object options', () => {
    expect(() => checkOptions('x', null, rules)).toThrow(/options must be an object/);
    expect(() => checkOptions('x', [], rules)).toThrow(/options must be an object/);
  });
});
