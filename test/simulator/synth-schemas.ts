import type { JsonSchema } from '../../src/library/tool.js';
import type { Rng } from '../../src/simulator/synth/random.js';

/**
 * A seeded generator of satisfiable schemas that use every keyword family the synthesizer handles, nested. Each
 * construction is satisfiable by design (bounds ordered, oneOf branches separable, `not` leaves room), so any
 * body that fails validation is the synthesizer's fault.
 */
export class SchemaMaker {
  constructor(private readonly rng: Rng) {}

  private readonly names = [
    'id',
    'name',
    'email',
    'userId',
    'created_at',
    'avatar-url',
    'status',
    'price',
    'count',
    'title',
    'description',
    'latitude',
    'phone',
    'country_code',
    'tags',
    'items',
    'url',
    'is_active',
    'score',
    'zip',
    'first_name',
    'updatedAt',
    'currency',
    'total',
    'color',
    'version',
    'ip',
    'language',
    'data',
    'meta',
  ];
  private readonly patterns: [string, number, number][] = [
    ['^[a-z]+$', 1, 9],
    ['^[A-Z]{2}$', 2, 2],
    ['^\\d{3}-\\d{4}$', 8, 8],
    ['^(?:\\+|-)?\\d+$', 1, 9],
    ['^[a-zA-Z0-9_-]{3,16}$', 3, 16],
    ['^(foo|bar|baz)-\\d{2}$', 6, 6],
    ['^[0-9a-f]{8}$', 8, 8],
    ['[a-z]', 1, 20],
    ['^\\w+@\\w+\\.com$', 7, 30],
    ['^v\\d+\\.\\d+$', 4, 12],
    ['^\\S+$', 1, 20],
    ['^[A-Z][a-z]+ [A-Z][a-z]+$', 5, 30],
  ];
  private readonly formats = [
    'date',
    'date-time',
    'time',
    'email',
    'uri',
    'uuid',
    'ipv4',
    'ipv6',
    'hostname',
    'duration',
    'uri-reference',
    'json-pointer',
    'regex',
    'byte',
    'int64',
    'password',
    'binary',
    'uri-template',
    'relative-json-pointer',
    'iso-date-time',
    'url',
    'phone',
    'idn-email',
  ];

  schema(depth = 0): JsonSchema {
    const r = this.rng;
    const leafOnly = depth >= 4;
    const kinds = leafOnly
      ? ['string', 'integer', 'number', 'boolean', 'enum', 'const', 'union', 'empty', 'true']
      : [
          'string',
          'integer',
          'number',
          'boolean',
          'enum',
          'const',
          'union',
          'empty',
          'true',
          'object',
          'object',
          'object',
          'array',
          'array',
          'allOf',
          'anyOf',
          'oneOf',
          'not',
          'ifThenElse',
          'tuple',
          'map',
          'nullable',
        ];
    switch (r.pick(kinds)) {
      case 'string':
        return this.string();
      case 'integer':
        return this.integer();
      case 'number':
        return this.number();
      case 'boolean':
        return { type: 'boolean' };
      case 'enum':
        return {
          enum: r.shuffle(['a', 'b', 1, 2.5, true, null, { k: 1 }, [1, 2], 'long value']).slice(0, r.int(1, 5)),
        };
      case 'const':
        return { const: r.pick(['x', 42, false, null, { nested: ['v'] }]) };
      case 'union':
        return {
          type: r.shuffle(['string', 'integer', 'number', 'boolean', 'null', 'array', 'object']).slice(0, r.int(2, 3)),
          minLength: 1,
          minimum: 0,
        };
      case 'empty':
        return {};
      case 'true':
        return true;
      case 'object':
        return this.object(depth);
      case 'array':
        return this.array(depth);
      case 'tuple':
        return {
          type: 'array',
          prefixItems: [this.schema(depth + 1), this.integer()],
          items: r.chance(0.5) ? false : this.string(),
          minItems: 2,
        };
      case 'map':
        return r.chance(0.5)
          ? {
              type: 'object',
              additionalProperties: this.schema(depth + 1),
              propertyNames: { pattern: '^[a-z]+$' },
              minProperties: r.int(0, 2),
            }
          : {
              type: 'object',
              patternProperties: { '^x-[a-z]+$': this.string(), '^n_\\d+$': this.integer() },
              additionalProperties: false,
              minProperties: 1,
            };
      case 'nullable':
        return { ...this.object(depth), type: ['object', 'null'] };
      case 'allOf':
        return this.allOf(depth);
      case 'anyOf':
        return {
          anyOf: [this.schema(depth + 1), this.schema(depth + 1), this.schema(depth + 1)].slice(0, r.int(1, 3)),
        };
      case 'oneOf':
        return this.oneOf(depth);
      case 'not':
        return r.pick<JsonSchema>([
          { type: 'string', not: { enum: ['forbidden', ''] } },
          { type: 'integer', minimum: 0, maximum: 100, not: { multipleOf: 2 } },
          { not: { type: ['null', 'boolean'] } },
          { type: ['string', 'integer'], not: { type: 'string' } },
          { type: 'object', properties: { a: { type: 'integer' } }, not: { required: ['b'] } },
        ]);
      default:
        return this.conditional();
    }
  }

  string(): JsonSchema {
    const r = this.rng;
    const roll = r.next();
    if (roll < 0.3) {
      const [pattern, min, max] = r.pick(this.patterns);
      return r.chance(0.5)
        ? { type: 'string', pattern }
        : { type: 'string', pattern, minLength: min, maxLength: max + 5 };
    }
    if (roll < 0.6) {
      const format = r.pick(this.formats);
      return r.chance(0.3) ? { type: 'string', format, maxLength: 200 } : { type: 'string', format };
    }
    const minLength = r.int(0, 12);
    return r.chance(0.5)
      ? { type: 'string', minLength, maxLength: minLength + r.int(0, 20) }
      : { type: 'string', minLength };
  }

  integer(): JsonSchema {
    const r = this.rng;
    const out: Record<string, unknown> = { type: 'integer' };
    const min = r.int(-1000, 1000);
    const span = r.int(0, 500);
    if (r.chance(0.6)) out[r.chance(0.5) ? 'minimum' : 'exclusiveMinimum'] = min;
    if (r.chance(0.6)) out[r.chance(0.5) ? 'maximum' : 'exclusiveMaximum'] = min + span + 2;
    if (r.chance(0.3)) {
      out.multipleOf = r.pick([2, 3, 5, 7, 10, 25]);
      if (out.maximum !== undefined || out.exclusiveMaximum !== undefined) {
        delete out.exclusiveMaximum;
        out.maximum = min + span + 100;
      }
    }
    if (r.chance(0.2)) out.format = r.pick(['int32', 'int64']);
    return out;
  }

  number(): JsonSchema {
    const r = this.rng;
    const out: Record<string, unknown> = { type: 'number' };
    const min = r.int(-5000, 5000) / 10;
    if (r.chance(0.6)) out[r.chance(0.5) ? 'minimum' : 'exclusiveMinimum'] = min;
    if (r.chance(0.6)) out[r.chance(0.5) ? 'maximum' : 'exclusiveMaximum'] = min + r.int(1, 10_000) / 7;
    if (r.chance(0.3)) {
      out.multipleOf = r.pick([0.5, 0.25, 0.1, 0.01, 2.5, 0.3]);
      if (out.maximum !== undefined || out.exclusiveMaximum !== undefined) {
        delete out.exclusiveMaximum;
        out.maximum = min + 50;
      }
    }
    if (r.chance(0.2)) out.format = r.pick(['float', 'double']);
    return out;
  }

  object(depth: number, prefix = ''): Record<string, unknown> {
    const r = this.rng;
    const keys = r
      .shuffle(this.names)
      .slice(0, r.int(0, 6))
      .map((key) => prefix + key);
    const properties: Record<string, JsonSchema> = {};
    for (const key of keys) properties[key] = this.schema(depth + 1);
    const required = keys.filter(() => r.chance(0.5));
    const out: Record<string, unknown> = { type: 'object', properties, required };
    if (r.chance(0.3)) out.additionalProperties = r.pick<JsonSchema>([false, true, { type: 'string' }]);
    if (r.chance(0.15)) out.patternProperties = { '^x-': { type: 'string' } };
    if (r.chance(0.15)) out.minProperties = Math.min(keys.length, r.int(0, 3));
    if (r.chance(0.15) && keys.length >= 2) out.dependentRequired = { [keys[0]!]: [keys[1]!] };
    // Room for every required key and the key a required one depends on.
    if (r.chance(0.15))
      out.maxProperties = Math.max(
        required.length + (out.dependentRequired ? 1 : 0),
        (out.minProperties as number | undefined) ?? 0,
        r.int(1, 4),
      );
    if (r.chance(0.1)) out.propertyNames = { pattern: '^[a-zA-Z_-]+$' };
    if (r.chance(0.05) && keys.length >= 1) out.dependentSchemas = { [keys[0]!]: { required: [keys[0]!] } };
    return out;
  }

  /** An object schema that leaves room for another's properties (merged by allOf, both must hold). */
  openObject(depth: number, prefix: string): JsonSchema {
    const {
      additionalProperties: _a,
      maxProperties: _b,
      propertyNames: _c,
      dependentSchemas: _d,
      ...open
    } = this.object(depth, prefix);
    return open;
  }

  array(depth: number): JsonSchema {
    const r = this.rng;
    const minItems = r.int(0, 3);
    const out: Record<string, unknown> = { type: 'array', minItems };
    if (r.chance(0.5)) out.maxItems = minItems + r.int(2, 5);
    if (r.chance(0.3)) {
      out.items = r.pick<JsonSchema>([{ type: 'integer' }, { type: 'string', minLength: 2 }, { type: 'number' }]);
      out.uniqueItems = true;
      if (r.chance(0.5)) {
        out.contains = {
          type: out.items && (out.items as { type: string }).type === 'string' ? 'string' : 'number',
          ...(r.chance(0.5) ? {} : {}),
        };
        if (r.chance(0.5)) out.minContains = r.int(1, 2);
        if (r.chance(0.3)) out.maxContains = 4;
        if (r.chance(0.3)) out.contains = { const: (out.items as { type: string }).type === 'string' ? 'needle' : 7 };
        if ((out.contains as { const?: unknown }).const !== undefined) {
          out.minContains = 1;
          out.maxContains = 1;
        }
      }
    } else {
      out.items = this.schema(depth + 1);
    }
    return out;
  }

  allOf(depth: number): JsonSchema {
    const r = this.rng;
    return r.pick<JsonSchema>([
      { allOf: [this.openObject(depth + 1, ''), this.openObject(depth + 1, 'more_')] },
      { allOf: [{ type: 'string', minLength: 2 }, { maxLength: 12 }, { pattern: '^[a-z]' }] },
      { allOf: [{ type: 'number', minimum: 5 }, { type: 'integer', maximum: 50 }, { multipleOf: 5 }] },
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
          { type: 'object', properties: { a: { minLength: 3 }, b: { type: 'integer' } } },
        ],
      },
      {
        type: 'object',
        required: ['kind'],
        properties: { kind: { type: 'string' } },
        allOf: [{ properties: { kind: { enum: ['x', 'y'] } } }, { anyOf: [{ required: ['x'] }, { required: ['y'] }] }],
      },
      { allOf: [{ $comment: 'annotations only', title: 'T', description: 'd' }, this.schema(depth + 1)] },
    ]);
  }

  oneOf(depth: number): JsonSchema {
    const r = this.rng;
    return r.pick<JsonSchema>([
      { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] },
      {
        oneOf: [
          { type: 'integer', maximum: 10 },
          { type: 'integer', minimum: 20 },
        ],
      },
      { oneOf: [{ type: 'integer' }, { type: 'number' }] },
      {
        oneOf: [
          { type: 'string', maxLength: 5 },
          { type: 'string', minLength: 3 },
        ],
      },
      {
        type: 'object',
        oneOf: [
          { properties: { kind: { const: 'cat' }, lives: { type: 'integer' } }, required: ['kind', 'lives'] },
          { properties: { kind: { const: 'dog' }, breed: { type: 'string' } }, required: ['kind'] },
        ],
      },
      { oneOf: [this.object(depth + 1), { type: 'array', items: this.schema(depth + 1) }, { type: 'null' }] },
    ]);
  }

  conditional(): JsonSchema {
    return {
      type: 'object',
      properties: {
        country: { enum: ['US', 'CA', 'FR'] },
        postal_code: { type: 'string' },
        zip: { type: 'string', pattern: '^\\d{5}$' },
      },
      required: ['country'],
      if: { properties: { country: { const: 'US' } }, required: ['country'] },
      then: { required: ['zip'] },
      else: { required: ['postal_code'] },
    };
  }
}
