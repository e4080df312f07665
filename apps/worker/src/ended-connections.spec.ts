import { EventEmitter } from 'node:events';
import { EndedConnectionGuard } from './ended-connections';

describe('EndedConnectionGuard', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function guarded(): { ended: string[]; guard: EndedConnectionGuard; connection: EventEmitter } {
    const ended: string[] = [];
    const guard = new EndedConnectionGuard((name) => ended.push(name), 1_000);
    const connection = new EventEmitter();
    guard.watch('queue', connection);
    return { ended, guard, connection };
  }

  it('calls out a connection that ended while the process runs, after the grace', () => {
    const { ended, connection } = guarded();
    connection.emit('end');
    jest.advanceTimersByTime(999);
    expect(ended).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(ended).toEqual(['queue']);
  });

  it('says nothing of a connection ended once the process is stopping', () => {
    const { ended, guard, connection } = guarded();
    guard.stop();
    connection.emit('end');
    jest.advanceTimersByTime(5_000);
    expect(ended).toEqual([]);
  });

  it('says nothing when the shutdown is heard within the grace (hooks run together)', () => {
    const { ended, guard, connection } = guarded();
    connection.emit('end');
    jest.advanceTimersByTime(500);
    guard.stop();
    jest.advanceTimersByTime(5_000);
    expect(ended).toEqual([]);
  });
});
