import { namedSchemas, text, viewSchema } from './schema';

interface Example {
  id: string;
  note?: string;
  count: number | null;
}

describe('viewSchema', () => {
  it('requires the fields the view requires, leaves out the optional ones, refuses others', () => {
    const ref = viewSchema<Example>(
      'SpecExample',
      { id: text, note: text, count: { type: 'integer', nullable: true } },
      ['note'],
    );
    expect(ref).toEqual({ $ref: '#/components/schemas/SpecExample' });
    expect(namedSchemas().SpecExample).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['id', 'count'],
    });
  });

  it('does not compile when the schema and the view disagree (checked by tsc)', () => {
    const drifted = () => {
      // @ts-expect-error `count` is missing
      viewSchema<Example>('SpecMissing', { id: text, note: text }, ['note']);
      // @ts-expect-error `extra` is not a field of the view
      viewSchema<Example>('SpecExtra', { id: text, note: text, count: text, extra: text });
      // @ts-expect-error `id` is required by the view
      viewSchema<Example>('SpecOptional', { id: text, note: text, count: text }, ['id']);
    };
    expect(typeof drifted).toBe('function');
  });

  it('refuses a second schema of the same name', () => {
    viewSchema<Example>('SpecTwice', { id: text, note: text, count: text }, ['note']);
    expect(() =>
      viewSchema<Example>('SpecTwice', { id: text, note: text, count: text }, ['note']),
    ).toThrow(/defined twice/);
  });
});
