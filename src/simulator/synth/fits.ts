import type { Flat, JsonType } from './flat.js';
import { formatOk } from './formats.js';
import { matches } from './regex.js';

export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

export function typeAllowed(value: unknown, types: Set<JsonType> | undefined): boolean {
  if (!types) return true;
  const type = jsonType(value);
  return types.has(type) || (type === 'integer' && types.has('number'));
}

/** The local checks of a value against a flat schema's own keywords (not its nested ones). */
export function fits(value: unknown, flat: Flat): boolean {
  if (!typeAllowed(value, flat.types)) return false;
  if (typeof value === 'number') return numberFits(value, flat, false);
  if (typeof value === 'string') return stringFits(value, flat);
  if (Array.isArray(value)) return value.length >= (flat.minItems ?? 0) && value.length <= (flat.maxItems ?? Infinity);
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    for (const key of flat.required) if (!(key in value)) return false;
    return keys.length >= (flat.minProperties ?? 0) && keys.length <= (flat.maxProperties ?? Infinity);
  }
  return true;
}

/** ajv's multipleOf test, mirrored exactly: the quotient must print as an integer. */
export function isMultiple(value: number, divisor: number): boolean {
  const quotient = value / divisor;
  return quotient === parseInt(String(quotient), 10);
}

export function numberFits(value: number, flat: Flat, integer: boolean): boolean {
  if (!Number.isFinite(value)) return false;
  if (integer && !Number.isInteger(value)) return false;
  if (flat.minimum !== undefined && value < flat.minimum) return false;
  if (flat.maximum !== undefined && value > flat.maximum) return false;
  if (flat.exclusiveMinimum !== undefined && value <= flat.exclusiveMinimum) return false;
  if (flat.exclusiveMaximum !== undefined && value >= flat.exclusiveMaximum) return false;
  for (const divisor of flat.multipleOf) if (!isMultiple(value, divisor)) return false;
  return true;
}

/** Length in code points, as ajv counts it. */
export function lengthOf(value: string): number {
  let length = value.length;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      length--;
      i++;
    }
  }
  return length;
}

export function stringFits(value: string, flat: Flat): boolean {
  if (flat.minLength !== undefined || flat.maxLength !== undefined) {
    const length = lengthOf(value);
    if (length < (flat.minLength ?? 0) || length > (flat.maxLength ?? Infinity)) return false;
  }
  for (const pattern of flat.patterns) if (!matches(pattern, value)) return false;
  for (const format of flat.formats) if (!formatOk(format, value)) return false;
  return true;
}
