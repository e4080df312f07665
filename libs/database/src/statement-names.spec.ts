import { StatementNames } from './statement-names';

describe('StatementNames', () => {
  it('names a text at its second run, the same name after', () => {
    const names = new StatementNames();
    expect(names.nameFor('SELECT $1')).toBeUndefined();
    const name = names.nameFor('SELECT $1');
    expect(name).toMatch(/^ais_\d+$/);
    expect(names.nameFor('SELECT $1')).toBe(name);
  });

  it('gives each text a name of its own', () => {
    const names = new StatementNames();
    for (const text of ['A $1', 'B $1', 'A $1', 'B $1']) names.nameFor(text);
    expect(names.nameFor('A $1')).not.toBe(names.nameFor('B $1'));
  });

  it('names no new text past its maximum, and keeps the names it gave', () => {
    const names = new StatementNames(2);
    for (const text of ['A', 'A', 'B', 'B', 'C', 'C']) names.nameFor(text);
    expect(names.nameFor('A')).toBeDefined();
    expect(names.nameFor('B')).toBeDefined();
    expect(names.nameFor('C')).toBeUndefined();
  });
});
