import { describe, expect, it } from 'vitest';
import { layout } from '../../tools/docs/layout.ts';
import {
  cascadeStreamFilters,
  changeFeedStreamFilters,
  githubEventStreamFilters,
  importJobStreamFilters,
} from '../../lib/db/core/table.ts';

/**
 * The stream filters (lib/db/core/table.ts) are plain data the CDK stack reads too, so they name item
 * types and stored attributes as words. Each word must be what a declaration (tools/docs/layout.ts) says:
 * a type some kind carries, and an attribute that every kind of the types it is matched with stores.
 * A kind renamed, or an attribute stored under another name, would otherwise leave a filter that
 * lets nothing through, and a consumer that silently never runs.
 */
type Image = Record<string, unknown>;
type Filter = { dynamodb: { NewImage?: Image; OldImage?: Image } };

const storedNamesOf = new Map<string, Set<string>>();
for (const row of layout) {
  if (!row.type) continue;
  const names = storedNamesOf.get(row.type) ?? new Set<string>();
  for (const a of Object.values(row.attributes)) names.add(a.stored);
  storedNamesOf.set(row.type, names);
}

/** `type: attribute` for each attribute a filter matches that a kind of its types does not store. */
function undeclared(filter: Filter): string[] {
  const { NewImage, OldImage } = filter.dynamodb;
  const typesOf = (image: Image | undefined) => ((image?.type as { S?: string[] } | undefined)?.S ?? []) as string[];
  // An image without a type (a MODIFY's old image) is of the types its new image names.
  const types = [...new Set([...typesOf(NewImage), ...typesOf(OldImage)])];
  const out: string[] = [];
  for (const type of types) if (!storedNamesOf.has(type)) out.push(`${type}: no kind of this type`);
  for (const image of [NewImage, OldImage]) {
    for (const attribute of Object.keys(image ?? {})) {
      if (attribute === 'type') continue;
      for (const type of typesOf(image).length > 0 ? typesOf(image) : types)
        if (!storedNamesOf.get(type)?.has(attribute)) out.push(`${type}: ${attribute}`);
    }
  }
  return out;
}

describe('the stream filters name what the declarations store', () => {
  const all = {
    cascadeStreamFilters,
    changeFeedStreamFilters,
    importJobStreamFilters,
    githubEventStreamFilters,
  } as unknown as Record<string, Filter[]>;

  it.each(Object.entries(all))(
    '%s: each type a declared kind, each attribute stored by every kind it is matched on',
    (_name, filters) => {
      expect(filters.flatMap(undeclared)).toEqual([]);
    },
  );

  it('finds a filter on a type no kind carries, and on an attribute its kind does not store', () => {
    expect(undeclared({ dynamodb: { OldImage: { type: { S: ['comment'] }, has_attachment: { BOOL: [true] } } } })).toEqual([
      'comment: has_attachment',
    ]);
    expect(undeclared({ dynamodb: { NewImage: { type: { S: ['import-job'] }, status: { S: ['queued'] } } } })).toEqual([
      'import-job: no kind of this type',
      'import-job: status',
    ]);
    // The old image of a MODIFY is of its new image's types.
    expect(undeclared({ dynamodb: { NewImage: { type: { S: ['delivery'] } }, OldImage: { state: { S: ['failed'] } } } })).toEqual(
      ['delivery: state'],
    );
  });
});
