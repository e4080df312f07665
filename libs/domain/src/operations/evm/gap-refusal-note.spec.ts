import { refusalNote } from './gap-refusal-note';

describe('refusalNote', () => {
  it('is empty when the node took every re-sent nonce', () => {
    expect(refusalNote([{ kind: 'accepted' }, { kind: 'accepted' }], 3n)).toBe('');
    expect(refusalNote([], 3n)).toBe('');
  });

  it("names the first nonce refused and the node's words", () => {
    expect(
      refusalNote(
        [
          { kind: 'accepted' },
          { kind: 'underpriced', message: 'max fee per gas less than block base fee' },
          { kind: 'rejected', message: 'later one' },
        ],
        3n,
      ),
    ).toBe('; the node refused nonce 4: max fee per gas less than block base fee');
  });

  it('names the kind of a refusal without words', () => {
    expect(refusalNote([{ kind: 'nonce-used' }], 7n)).toBe(
      '; the node refused nonce 7: nonce-used',
    );
  });

  it("bounds the node's words", () => {
    const note = refusalNote([{ kind: 'rejected', message: 'x'.repeat(10_000) }], 0n);
    expect(note.length).toBeLessThan(400);
    expect(note.startsWith('; the node refused nonce 0: xxx')).toBe(true);
  });
});
