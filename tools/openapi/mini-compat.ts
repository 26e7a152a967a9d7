/**
 * zod-to-openapi (9.x) reads any zod 4 schema's definition, but asks a few things of a schema the
 * way classic zod's members answer them: `meta()` (the schema's metadata: the registry's entry), for
 * a nullable `unwrap()` (the schema inside), for a record `keyType` and `valueType`, and for a string
 * or a number `format`, `minLength` and `maxLength` (what its checks and its bag say). The service's schemas are `zod/mini`
 * (lib/schemas/zod.ts), which has none of them. `forGenerator` gives a schema, and every schema its
 * definition reaches, those members, answering as classic zod does; its types are then the ones the
 * generator names. It runs in the OpenAPI tools only, never in a bundle; the document the generator
 * writes is checked byte for byte (test/unit/openapi-document.test.ts).
 */
import type { ZodObject as GeneratorObject, ZodType as GeneratorSchema } from 'zod';
import * as z from 'zod/mini';

const given = new WeakSet<object>();

const isSchema = (value: unknown): value is z.core.$ZodType => typeof value === 'object' && value !== null && '_zod' in value;

interface Aggregate {
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** A string's or number's format and length bounds from its checks and bag, as zod's own `aggregateChecks` folds them. */
function aggregate(schema: z.core.$ZodType): Aggregate {
  const def = schema._zod.def;
  const checks = schema._zod.traits.has('$ZodCheck')
    ? [schema as unknown as z.core.$ZodCheck, ...(def.checks ?? [])]
    : (def.checks ?? []);
  const agg: Aggregate = {};
  const atLeast = (n: number) => (agg.minimum = agg.minimum === undefined ? n : Math.max(agg.minimum, n));
  const atMost = (n: number) => (agg.maximum = agg.maximum === undefined ? n : Math.min(agg.maximum, n));
  for (const check of checks) {
    const d = check._zod.def as { check: string; format?: string; minimum?: number; maximum?: number; length?: number };
    if ((d.check === 'string_format' || d.check === 'number_format') && d.format) agg.format = d.format;
    else if (d.check === 'min_length' && d.minimum !== undefined) atLeast(d.minimum);
    else if (d.check === 'max_length' && d.maximum !== undefined) atMost(d.maximum);
    else if (d.check === 'length_equals' && d.length !== undefined) {
      atLeast(d.length);
      atMost(d.length);
    }
  }
  const bag = (schema._zod.bag ?? {}) as Aggregate;
  if (bag.minimum !== undefined) atLeast(bag.minimum);
  if (bag.maximum !== undefined) atMost(bag.maximum);
  agg.format ??= bag.format;
  return agg;
}

function giveClassicMethods(schema: z.core.$ZodType): void {
  if (given.has(schema)) return;
  given.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const bag = def.type === 'string' || def.type === 'number' ? aggregate(schema) : undefined;
  Object.assign(schema, {
    meta: () => z.globalRegistry.get(schema),
    ...(isSchema(def.innerType) ? { unwrap: () => def.innerType } : {}),
    ...(def.type === 'record' ? { keyType: def.keyType, valueType: def.valueType } : {}),
    ...(bag ? { format: bag.format ?? null, minLength: bag.minimum ?? null, maxLength: bag.maximum ?? null } : {}),
  });
  for (const value of Object.values(def)) {
    if (isSchema(value)) giveClassicMethods(value);
    else if (Array.isArray(value)) value.filter(isSchema).forEach(giveClassicMethods);
    else if (value && typeof value === 'object' && value === def.shape)
      Object.values(value).filter(isSchema).forEach(giveClassicMethods);
  }
  if (def.type === 'lazy' && typeof def.getter === 'function') giveClassicMethods((def.getter as () => z.core.$ZodType)());
}

/** `schema` as zod-to-openapi's types name it, with what it asks of a schema. */
export function forGenerator(schema: z.core.$ZodType): GeneratorSchema {
  giveClassicMethods(schema);
  return schema as unknown as GeneratorSchema;
}

/** An object `schema` (parameters, headers) as zod-to-openapi's types name it. */
export const objectForGenerator = (schema: z.ZodMiniObject) => forGenerator(schema) as unknown as GeneratorObject;
