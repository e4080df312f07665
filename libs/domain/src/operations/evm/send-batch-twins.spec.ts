import { mergeTwins, type TwinnableSend } from './send-batch-twins';

interface Send extends TwinnableSend {
  label: string;
  done: (error?: Error, stored?: string) => void;
}

function send(id: string, label: string, told: string[]): Send {
  return {
    label,
    operation: { id },
    done: (error, stored) => told.push(`${label}:${error?.message ?? stored ?? 'none'}`),
  };
}

describe('mergeTwins', () => {
  it('keeps one send per operation, in the order of first appearance', () => {
    const told: string[] = [];
    const merged = mergeTwins([
      send('a', 'a1', told),
      send('b', 'b1', told),
      send('a', 'a2', told),
      send('c', 'c1', told),
      send('a', 'a3', told),
    ]);
    expect(merged.map((item) => item.label)).toEqual(['a1', 'b1', 'c1']);
  });

  it('tells every twin the outcome of the one signing', () => {
    const told: string[] = [];
    const [a, b] = mergeTwins([
      send('a', 'a1', told),
      send('b', 'b1', told),
      send('a', 'a2', told),
    ]);
    a.done(undefined, 'submitted');
    b.done(new Error('refused'));
    expect(told).toEqual(['a1:submitted', 'a2:submitted', 'b1:refused']);
  });

  it('leaves a batch without twins as it is', () => {
    const told: string[] = [];
    const batch = [send('a', 'a1', told), send('b', 'b1', told)];
    expect(mergeTwins(batch)).toEqual(batch);
  });
});
