import { UpdateCommand, type UpdateCommandInput, type UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import type { Key } from './keys.ts';
import type { RefusalReason } from './refusals.ts';
import { tableDefinition } from './table.ts';

/**
 * A stored item kind, declared once: where it lives (its key, as the layout shows it), what it is,
 * and its attributes, each with its stored name, how it reads (with the default an item written
 * before the attribute existed answers) and how it is written. From the one declaration come the
 * decoder (stored item -> typed fields), the encoder (fields -> stored attributes), projections
 * (ProjectionExpression lists) and the stored items tests seed by hand; the layout table of
 * docs/data-model.md is generated from the declarations (tools/docs/layout.ts).
 */

/** One attribute: its stored name, how a stored value reads, how a value is stored. */
export interface Attribute<T, S extends string = string> {
  stored: S;
  read: (value: unknown) => T;
  /** The stored value; `undefined`: no attribute at all (an absent one reads as its default). */
  write(value: T): unknown;
}

const same = <T>(value: T): unknown => value;
const orNull = (v: unknown) => (v === null || v === undefined ? null : v);

/** The kinds of attribute the table holds. */
export const attribute = {
  string: <S extends string>(stored: S): Attribute<string, S> => ({ stored, read: (v) => String(v), write: same }),
  number: <S extends string>(stored: S): Attribute<number, S> => ({ stored, read: (v) => Number(v), write: same }),
  /** A count, absent until first added to: absent reads 0. */
  counter: <S extends string>(stored: S): Attribute<number, S> => ({ stored, read: (v) => Number(v ?? 0), write: same }),
  nullableString: <S extends string>(stored: S): Attribute<string | null, S> => ({
    stored,
    read: (v) => (typeof v === 'string' ? v : null),
    write: same,
  }),
  nullableNumber: <S extends string>(stored: S): Attribute<number | null, S> => ({
    stored,
    read: (v) => (orNull(v) === null ? null : Number(v)),
    write: same,
  }),
  /** A string set on the item only when there is one: none is no attribute. */
  optionalString: <S extends string>(stored: S): Attribute<string | null, S> => ({
    stored,
    read: (v) => (typeof v === 'string' ? v : null),
    write: (v) => v || undefined,
  }),
  /** One of a closed set of words; an item written before the attribute existed answers `unset`. */
  oneOf: <T extends string, S extends string = string>(stored: S, unset?: T): Attribute<T, S> => ({
    stored,
    read: (v) => ((v as T | null | undefined) ?? unset) as T,
    write: same,
  }),
  /** Ids as a number set, ascending; a number set cannot be empty, so none is stored as null. */
  numberSet: <S extends string>(stored: S): Attribute<number[], S> => ({
    stored,
    read: (v) => (v === null || v === undefined ? [] : [...(v as Iterable<unknown>)].map(Number).sort((a, b) => a - b)),
    write: (ids) => (ids.length > 0 ? new Set(ids) : null),
  }),
  /** A text set once it happens (an activation's time): absent before. */
  laterString: <S extends string>(stored: S): Attribute<string | undefined, S> => ({
    stored,
    read: (v) => (typeof v === 'string' ? v : undefined),
    write: same,
  }),
  /** A number set once it is known (on an item written before it was, absent): undefined before. */
  laterNumber: <S extends string>(stored: S): Attribute<number | undefined, S> => ({
    stored,
    read: (v) => (v === null || v === undefined ? undefined : Number(v)),
    write: same,
  }),
  /** True or false, both stored; an item written before the attribute existed answers `unset`. */
  boolean: <S extends string>(stored: S, unset = false): Attribute<boolean, S> => ({
    stored,
    read: (v) => (typeof v === 'boolean' ? v : unset),
    write: same,
  }),
  /** A mark that is there or not: stored as true when set, no attribute when not. */
  flag: <S extends string>(stored: S): Attribute<boolean, S> => ({
    stored,
    read: (v) => v === true,
    write: (v) => (v ? true : undefined),
  }),
  /** When the item goes: Unix seconds in the table's TTL attribute (lib/db/core/table.ts), which DynamoDB deletes it by. */
  expiry: () => attribute.number(tableDefinition.ttlAttribute),
  /** A value stored whole (a map), read as written; absent (or null): none. */
  whole: <T, S extends string>(stored: S): Attribute<T | undefined, S> => ({
    stored,
    read: (v) => (v ?? undefined) as T | undefined,
    write: same,
  }),
};

type Attributes = Record<string, Attribute<unknown>>;
/** The typed fields an item kind's attributes decode to. */
export type Fields<A extends Attributes> = { [K in keyof A]: ReturnType<A[K]['read']> };

/**
 * A stored item of a kind as it comes from the table, before it is decoded: its key and its
 * attributes under their stored names, each typed as it reads. An item written before an attribute
 * existed (or read through a projection) lacks it: what reads one by hand says what absent means
 * (`Number(item.receiving ?? 0)`), as `decode` does for every attribute at once.
 */
export type Stored<A extends Attributes> = { PK: string; SK: string; LSK?: string } & {
  [K in keyof A as A[K]['stored']]: ReturnType<A[K]['read']>;
};

/** Where an item lives, as the layout table shows it. */
export interface Placement {
  PK: string;
  SK: string;
  /** Its LSI1 sort key (list order), if it is listed. */
  LSK?: string;
}

/**
 * A typed change of one item of a kind, by its fields: the values it sets (a value stored as no
 * attribute, such as a cleared flag, is removed), the numbers added to counters, the members added
 * to or deleted from a set, the fields removed, and the guard it is written on.
 */
export interface Change<A extends Attributes> {
  set?: Partial<Fields<A>>;
  add?: Partial<Record<keyof A & string, number | Set<number | string>>>;
  delete?: Partial<Record<keyof A & string, Set<number | string>>>;
  remove?: (keyof A & string)[];
  if?: Guard<A>;
}

/** What a change is written on: the item there (or not there), fields holding these values, fields absent. */
export interface Guard<A extends Attributes> {
  exists?: boolean;
  equals?: Partial<Fields<A>>;
  absent?: (keyof A & string)[];
}

/** An UpdateItem's expressions, as a change of a kind spells them. */
export interface UpdateExpressions {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** An update as a transaction item (a `GuardedItem` of lib/db/core/transactions.ts), with what its guard's failure means. */
export interface GuardedUpdate {
  item: { Update: { TableName: string; Key: Key } & UpdateExpressions };
  reason?: RefusalReason;
}

/** A condition a guard cannot say, spelled by hand. */
export interface Condition {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** A condition of its own (one a guard cannot say), joined to an update's with AND. */
export function alsoIf(update: UpdateExpressions, condition: Condition): UpdateExpressions {
  const values = { ...update.ExpressionAttributeValues, ...condition.ExpressionAttributeValues };
  return {
    ...update,
    ConditionExpression: [update.ConditionExpression, condition.ConditionExpression].filter(Boolean).join(' AND '),
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...condition.ExpressionAttributeNames },
    ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
  };
}

/** Spells a change of a kind with these attributes: `#field` names its stored name, `:field`… its values. */
function spell<A extends Attributes>(attributes: A, change: Change<A>): UpdateExpressions {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const name = (field: string) => {
    names[`#${field}`] = attributes[field]!.stored;
    return `#${field}`;
  };
  const value = (field: string, as: string, v: unknown) => {
    values[`:${field}${as}`] = v;
    return `:${field}${as}`;
  };
  const sets: string[] = [];
  const removes = (change.remove ?? []).map(name);
  for (const [field, v] of Object.entries(change.set ?? {})) {
    const written = attributes[field]!.write(v);
    if (written === undefined) removes.push(name(field));
    else sets.push(`${name(field)} = ${value(field, '', written)}`);
  }
  const adds = Object.entries(change.add ?? {}).map(([field, v]) => `${name(field)} ${value(field, 'Added', v)}`);
  const deletes = Object.entries(change.delete ?? {}).map(([field, v]) => `${name(field)} ${value(field, 'Deleted', v)}`);
  const clauses = [
    sets.length > 0 && `SET ${sets.join(', ')}`,
    removes.length > 0 && `REMOVE ${removes.join(', ')}`,
    adds.length > 0 && `ADD ${adds.join(', ')}`,
    deletes.length > 0 && `DELETE ${deletes.join(', ')}`,
  ];
  const guard = change.if ?? {};
  const conditions = [
    guard.exists === true && 'attribute_exists(PK)',
    guard.exists === false && 'attribute_not_exists(PK)',
    ...Object.entries(guard.equals ?? {}).map(
      ([field, v]) => `${name(field)} = ${value(field, 'Was', attributes[field]!.write(v))}`,
    ),
    ...(guard.absent ?? []).map((field) => `attribute_not_exists(${name(field)})`),
  ].filter((c): c is string => typeof c === 'string');
  return {
    UpdateExpression: clauses.filter(Boolean).join(' '),
    ...(conditions.length > 0 && { ConditionExpression: conditions.join(' AND ') }),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
  };
}

export interface ItemKind<A extends Attributes> {
  /** Its `type` attribute (what kind of item it is), when items of this kind carry one. */
  type?: string;
  key: Placement;
  about: string;
  attributes: A;
  /** The typed fields of a stored item. */
  decode: (item: object) => Fields<A>;
  /** One field of a stored item. */
  field: <F extends keyof A & string>(item: object, field: F) => Fields<A>[F];
  /** The stored attributes of the fields given (all of an item, or those a write sets). */
  encode: (fields: Partial<Fields<A>>) => Record<string, unknown>;
  /** The stored name of a field. */
  stored: (field: keyof A & string) => string;
  /** A projection reading only `fields`. */
  projection: (fields: (keyof A & string)[]) => {
    ProjectionExpression: string;
    ExpressionAttributeNames: Record<string, string>;
  };
  /** The expressions of an UpdateItem making this change (see `Change`). */
  update: (change: Change<A>) => UpdateExpressions;
  /**
   * This change to the item at `key` as a transaction item; `reason` names what its guard's
   * failure means, `also` joins a condition the guard cannot say.
   */
  updateAt: (key: Key, change: Change<A>, reason?: RefusalReason, also?: Condition) => GuardedUpdate;
  /** Sends this change to the item at `key` now (one UpdateItem); `returning` asks for its values back. */
  updateNow: (
    key: Key,
    change: Change<A>,
    also?: Condition,
    returning?: UpdateCommandInput['ReturnValues'],
  ) => Promise<UpdateCommandOutput>;
}

/** Declares a stored item kind (see the head of this file). */
export function itemKind<A extends Attributes>(declaration: {
  type?: string;
  key: Placement;
  about: string;
  attributes: A;
}): ItemKind<A> {
  const entries = Object.entries(declaration.attributes);
  return {
    ...declaration,
    decode: (item) => {
      const stored = item as Record<string, unknown>;
      return Object.fromEntries(entries.map(([field, a]) => [field, a.read(stored[a.stored])])) as Fields<A>;
    },
    field: (item, field) => {
      const a = declaration.attributes[field]!;
      return a.read((item as { [stored: string]: unknown })[a.stored]) as Fields<A>[typeof field];
    },
    encode: (fields) => {
      const out: Record<string, unknown> = {};
      for (const [field, a] of entries) {
        const value = (fields as Record<string, unknown>)[field];
        if (value === undefined) continue;
        const written = a.write(value);
        if (written !== undefined) out[a.stored] = written;
      }
      return out;
    },
    stored: (field) => declaration.attributes[field]!.stored,
    projection: (fields) => {
      const names = fields.map((f) => declaration.attributes[f]!.stored);
      return {
        ProjectionExpression: names.map((_, i) => `#p${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#p${i}`, n])),
      };
    },
    update: (change) => spell(declaration.attributes, change),
    updateAt: (key, change, reason, also) => ({
      item: { Update: { TableName: tableName(), Key: key, ...spelled(declaration.attributes, change, also) } },
      ...(reason === undefined ? {} : { reason }),
    }),
    updateNow: (key, change, also, returning) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          ...spelled(declaration.attributes, change, also),
          ...(returning && { ReturnValues: returning }),
        }),
      ),
  };
}

/** A change spelled, with a condition of its own joined when there is one. */
const spelled = <A extends Attributes>(attributes: A, change: Change<A>, also?: Condition) =>
  also ? alsoIf(spell(attributes, change), also) : spell(attributes, change);
