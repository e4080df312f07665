import type { AuditEventRepository } from '../repositories/audit-event.repository';
import { AuditChainChecker, type AuditChainBreak } from './audit-chain';

export interface AuditVerification {
  accounts: number;
  entries: number;
  /** The first broken link of each account whose chain does not hold; empty when all hold. */
  breaks: AuditChainBreak[];
}

/** Walks every account's chain from its first entry to its last (`npm run audit:verify`). */
export async function verifyAuditLog(events: AuditEventRepository): Promise<AuditVerification> {
  const checker = new AuditChainChecker();
  const result: AuditVerification = { accounts: 0, entries: 0, breaks: [] };
  let accountId: string | null = null;
  for await (const entry of events.walk()) {
    result.entries++;
    if (entry.accountId !== accountId) {
      accountId = entry.accountId;
      result.accounts++;
    }
    const found = checker.check(entry);
    if (found) result.breaks.push(found);
  }
  return result;
}

/** One line per broken chain, naming the account, the entry and what is wrong. */
export function describeBreak(found: AuditChainBreak): string {
  return `account ${found.accountId}: entry seq ${found.seq} (id ${found.id}): ${found.problem}`;
}
