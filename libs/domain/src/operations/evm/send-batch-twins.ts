/** What the send pipeline needs of a queued send here: whose it is and whom to tell. */
export interface TwinnableSend {
  operation: { id: string };
  done: (...outcome: never[]) => void;
}

/**
 * One entry per operation, the first's place kept: the same operation can be queued twice (its
 * job run again while the first run still waits for the wallet: a job lock that lapsed, a Redis
 * flush re-enqueueing it). Signed twice, the second transaction would leave the wallet
 * unrecorded, a double mint. The twins are told the outcome of the one signing.
 */
export function mergeTwins<Send extends TwinnableSend>(batch: Send[]): Send[] {
  const byOperation = new Map<string, Send>();
  for (const send of batch) {
    const first = byOperation.get(send.operation.id);
    if (!first) {
      byOperation.set(send.operation.id, send);
      continue;
    }
    const tellFirst = first.done;
    const tellBoth = (...outcome: Parameters<Send['done']>) => {
      tellFirst(...outcome);
      send.done(...outcome);
    };
    byOperation.set(send.operation.id, { ...first, done: tellBoth });
  }
  return [...byOperation.values()];
}
