import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { canonicalNumber, isNumberValue, numericText } from '../../../src/engine/numbers.js';

describe('isNumberValue', () => {
  it('recognises util-dynamodb’s NumberValue, and no plain object, whatever its keys', () => {
    expect(isNumberValue(NumberValue.from('3.5'))).toBe(true);
    expect(isNumberValue({ value: '3.5' })).toBe(false);
    expect(isNumberValue({ value: '3.5', toBigInt: () => 3n })).toBe(false);
    expect(isNumberValue(JSON.parse('{"value":"3","__proto__":{"toBigInt":1}}'))).toBe(false);
    expect(isNumberValue(Object.assign(Object.create(null) as object, { value: '3' }))).toBe(false);
    expect(isNumberValue('3')).toBe(false);
  });
});

describe('numericText', () => {
  it('reads numbers, bigints and NumberValues; a map with a "value" string is not a number', () => {
    expect(numericText(12)).toBe('12');
    expect(numericText(12n)).toBe('12');
    expect(numericText(NumberValue.from('12345678901234567890'))).toBe('12345678901234567890');
    expect(numericText({ value: '2' })).toBeUndefined();
    expect(numericText('2')).toBeUndefined();
  });
});

describe('canonicalNumber', () => {
  it('one text per decimal value, exact', () => {
    const same = [1.5, '1.50', '15e-1', '0.15E+1', '+1.5', NumberValue.from('1.5')];
    expect(new Set(same.map((v) => canonicalNumber(v))).size).toBe(1);
    expect(canonicalNumber(0)).toBe(canonicalNumber('-0.000e7'));
    expect(canonicalNumber(-0)).toBe(canonicalNumber(0));
    expect(canonicalNumber(100)).not.toBe(canonicalNumber(10));
    expect(canonicalNumber('12345678901234567891')).not.toBe(canonicalNumber(12345678901234567890n));
    expect(canonicalNumber(-1)).not.toBe(canonicalNumber(1));
  });

  it('keeps non-finite numbers apart from every decimal and from each other', () => {
    const odd = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0];
    expect(new Set(odd.map((v) => canonicalNumber(v))).size).toBe(4);
  });

  it('is undefined for what is not a number; text that is not a decimal keeps its own spelling', () => {
    expect(canonicalNumber({ value: '1' })).toBeUndefined();
    expect(canonicalNumber(true)).toBeUndefined();
    expect(canonicalNumber('abc')).toBeUndefined();
    expect(canonicalNumber(NumberValue.from('0x10'))).not.toBe(canonicalNumber(16));
  });
});
