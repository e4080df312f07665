import { IsOptional, IsString } from 'class-validator';
import { PROTOTYPE_NAMES } from '@test/support/prototype-names';
import { declaredFields, fieldProblems } from './body-fields';

class Parent {
  @IsString() name!: string;
}

class Child extends Parent {
  @IsOptional() @IsString() note?: string;
}

describe('body fields', () => {
  it('knows the fields a DTO declares, its parents included', () => {
    expect([...declaredFields(Child)].sort()).toEqual(['name', 'note']);
  });

  it.each(PROTOTYPE_NAMES)(
    'takes %s, a name every object inherits, for an unknown field',
    (name) => {
      expect(fieldProblems(JSON.parse(`{"name":"a","${name}":"x"}`), Child)).toEqual([
        `${name} is not an accepted field`,
      ]);
    },
  );

  it('refuses a null on a declared field, optional or not, naming each', () => {
    expect(fieldProblems({ name: null, note: null }, Child)).toEqual([
      'name must not be null',
      'note must not be null',
    ]);
  });

  it('has nothing to say of declared fields with values, or of an absent one', () => {
    expect(fieldProblems({ name: 'a' }, Child)).toEqual([]);
    expect(fieldProblems(Object.assign(Object.create(null), { note: '' }), Child)).toEqual([]);
  });
});
