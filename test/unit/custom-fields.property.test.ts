import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planFieldCreate, planFieldUpdate, type FieldsRead } from '../../lib/model/custom-field-plans.ts';
import {
  plannedValues,
  settledValues,
  shownValues,
  storedFromShown,
  type FieldDefinition,
  type FieldSet,
} from '../../lib/model/custom-fields.ts';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import { fieldTypes, type FieldType } from '../../lib/vocabulary/custom-fields.ts';

const times = { createdAt: 't', updatedAt: 't' };
const options = [
  { id: 11, name: 'low', color: '#6b7280' },
  { id: 12, name: 'High', color: '#b60205' },
  { id: 13, name: 'Ünïcode', color: '#000000' },
];
const field = (id: number, type: FieldType, over: Partial<FieldDefinition> = {}): FieldDefinition => ({
  id,
  key: `f_${type}`,
  name: `The ${type}`,
  type,
  description: null,
  required: false,
  options: type === 'select' || type === 'multi_select' ? options : [],
  version: 1,
  ...times,
  ...over,
});
const fields: FieldSet = fieldTypes.map((type, i) => field(i + 1, type));
const byType = (type: FieldType) => fields.find((f) => f.type === type)!;

/** Values each type takes, as a write may give them. */
const valid: Record<FieldType, fc.Arbitrary<unknown>> = {
  text: fc.string({ minLength: 1, maxLength: 1000 }).filter((s) => s.trim() !== ''),
  number: fc.double({ min: -1e15, max: 1e15, noNaN: true }),
  date: fc
    .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  select: fc.oneof(
    fc.constantFrom(...options.map((o) => o.id)),
    fc.constantFrom(...options.map((o) => o.name)).map((n) => (Math.random() < 0.5 ? n.toUpperCase() : ` ${n} `)),
  ),
  multi_select: fc.uniqueArray(fc.constantFrom(...options.map((o) => o.id)), { minLength: 1 }),
  account: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  url: fc.webUrl({ validSchemes: ['http', 'https'] }).filter((u) => u.length <= 2000 && !/\s/.test(u)),
  checkbox: fc.constant(true),
};

/** Values each type refuses. */
const invalid: Record<FieldType, fc.Arbitrary<unknown>> = {
  text: fc.oneof(fc.integer(), fc.boolean(), fc.string({ minLength: 1001, maxLength: 1100 })),
  number: fc.oneof(fc.string(), fc.boolean(), fc.constantFrom(Infinity, 2e15, -2e15)),
  date: fc.oneof(fc.constantFrom('2026-02-30', '2026-13-01', '31/12/2026', '2026-1-1'), fc.integer()),
  select: fc.oneof(fc.constantFrom('medium', 'hihg', 99), fc.boolean()),
  multi_select: fc.oneof(fc.constant('low'), fc.constant(['low', 'nope']), fc.constant([99])),
  account: fc.oneof(fc.constantFrom(0, -1, 1.5), fc.string()),
  url: fc.constantFrom('ftp://example.com', 'example.com', 'https://exa mple.com', 'javascript:alert(1)', 12),
  checkbox: fc.oneof(fc.constantFrom('true', 1, 0), fc.string()),
};

describe('custom field values (docs/custom-fields.md)', () => {
  it.each(fieldTypes)('%s: every value it takes is stored, shown, and read back from what is shown as stored', (type) => {
    const f = byType(type);
    fc.assert(
      fc.property(valid[type], (given) => {
        const stored = plannedValues(fields, { [f.key]: given });
        expect(Object.keys(stored)).toEqual([String(f.id)]);
        const shown = shownValues(stored, fields);
        expect(storedFromShown(fields, shown)).toEqual(stored);
        // Written by its name, in another case, the same.
        expect(plannedValues(fields, { [f.name.toUpperCase()]: given })).toEqual(stored);
        // A stored value is what its definition keeps.
        expect(settledValues(stored, fields)).toEqual(stored);
      }),
      { numRuns: 100 },
    );
  });

  it.each(fieldTypes)('%s: every value it refuses is a 422 naming the field and what it takes', (type) => {
    const f = byType(type);
    fc.assert(
      fc.property(invalid[type], (given) => {
        let refused: unknown;
        try {
          plannedValues(fields, { [f.key]: given });
        } catch (err) {
          refused = err;
        }
        expect(refused).toBeInstanceOf(ValidationError);
        const [message] = (refused as ValidationError).errors;
        expect(message).toMatch(new RegExp(`^custom_fields\\.${f.key}: `));
      }),
      { numRuns: 50 },
    );
  });

  it('clears a value with null, an empty text or array, or false; keeps the others; the whole null clears all', () => {
    const current = plannedValues(fields, { f_text: 'a', f_number: 1, f_checkbox: true, f_multi_select: [11] });
    expect(plannedValues(fields, { f_text: '  ', f_checkbox: false }, { current })).toEqual({
      [byType('number').id]: 1,
      [byType('multi_select').id]: [11],
    });
    expect(plannedValues(fields, { f_number: null, f_multi_select: [] }, { current })).toEqual({
      [byType('text').id]: 'a',
      [byType('checkbox').id]: true,
    });
    expect(plannedValues(fields, null, { current })).toEqual({});
  });

  it('keeps a multi_select in its options order, once each', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(11, 12, 13, 'low', 'HIGH'), { minLength: 1, maxLength: 10 }), (refs) => {
        const stored = plannedValues(fields, { f_multi_select: refs })[String(byType('multi_select').id)] as number[];
        expect(stored).toEqual([...stored].sort((a, b) => a - b));
        expect(new Set(stored).size).toBe(stored.length);
      }),
    );
  });

  it('shows a value of a deleted option or field as none, and settles it away', () => {
    const stored = plannedValues(fields, { f_select: 'low', f_multi_select: ['low', 'High'], f_text: 'x' });
    const fewer = fields
      .filter((f) => f.type !== 'text')
      .map((f) => (f.options.length > 0 ? { ...f, options: f.options.filter((o) => o.name !== 'low') } : f));
    const shown = shownValues(stored, fewer);
    expect(shown).toMatchObject({ f_select: null, f_multi_select: ['High'] });
    expect('f_text' in shown).toBe(false);
    expect(settledValues(stored, fewer)).toEqual({ [byType('multi_select').id]: [12] });
  });

  it('refuses a required field left without a value on a create, or cleared by an update; not on an import', () => {
    const required = [field(1, 'text', { key: 'team', name: 'Team', required: true })];
    expect(() => plannedValues(required, {})).toThrow(/custom_fields\.team: is required/);
    expect(plannedValues(required, {}, { imported: true })).toEqual({});
    const current = plannedValues(required, { team: 'Core' });
    expect(plannedValues(required, { Team: 'Web' }, { current })).toEqual({ 1: 'Web' });
    expect(() => plannedValues(required, { team: null }, { current })).toThrow(/is required/);
  });
});

describe('custom field definitions', () => {
  const read = (fieldSet: FieldSet, seq: number): FieldsRead => ({ fields: fieldSet, rev: 1, seq });
  const at = { created_at: 't', updated_at: 't' };

  it('gives new fields and options fresh ids, keys from names, and refuses names and keys taken (ignoring case)', () => {
    const { field: made, change } = planFieldCreate(
      read([], 0),
      { name: 'Target release', type: 'select', options: [{ name: 'a' }, { name: 'b', id: 7 }] },
      at,
    );
    expect(made).toMatchObject({ id: 1, key: 'target_release', options: [{ id: 2 }, { id: 3 }] });
    expect(change.seq).toBe(3);
    expect(() => planFieldCreate(read([made!], 3), { name: 'TARGET RELEASE', type: 'text' }, at)).toThrow(/already been taken/);
    expect(() => planFieldCreate(read([made!], 3), { name: 'target_release', type: 'text' }, at)).toThrow(/already been taken/);
  });

  it('keeps an option by its id or its name through any update of the list, and settles values only when one goes', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(options), fc.boolean(), fc.string({ minLength: 1, maxLength: 10 }), (kept, byId, extra) => {
        const current = field(1, 'select');
        fc.pre(!options.some((o) => o.name.toLowerCase() === extra.trim().toLowerCase()) && extra.trim() !== '');
        const given = [...kept.map((o) => (byId ? { id: o.id, name: `${o.name}!` } : { name: o.name })), { name: extra.trim() }];
        const { field: updated, change } = planFieldUpdate(read([current], 20), 1, { options: given }, 'now');
        expect(updated!.options.slice(0, kept.length).map((o) => o.id)).toEqual(kept.map((o) => o.id));
        expect(updated!.options.at(-1)!.id).toBe(21);
        expect(change.settle !== undefined).toBe(kept.length < options.length);
      }),
    );
  });
});
