import { Interface, isCallException, type ErrorDescription } from 'ethers';
import { AppError, boundedText } from '@app/common';
import { ChainRejection, plainNodeText } from '../chain-rejection';
import { assetCollectionArtifact, assetTokenArtifact } from './contracts/artifacts';

const INTERFACES = [
  new Interface(assetTokenArtifact.abi),
  new Interface(assetCollectionArtifact.abi),
];

/** The custom error in revert data, decoded against our contracts' ABIs. */
export function decodeRevert(data: string | null | undefined): ErrorDescription | null {
  if (!data || data === '0x') return null;
  for (const contract of INTERFACES) {
    try {
      const decoded = contract.parseError(data);
      if (decoded) return decoded;
    } catch {
      // not this contract's error
    }
  }
  return null;
}

/**
 * A contract revert as the client's error (contract: 403 authority, 409 state), or null when the
 * thrown value is not a revert (an RPC fault is retried instead). The revert as ethers reported
 * it is the error's `detail`, for the log.
 */
export function revertToAppError(error: unknown): ChainRejection | null {
  if (!isCallException(error)) return null;
  const decoded = decodeRevert(error.data);
  const client = clientError(decoded, error.reason);
  return new ChainRejection(client.code, client.message, boundedText(error.message));
}

function clientError(decoded: ErrorDescription | null, reason: string | null): AppError {
  switch (decoded?.name) {
    case 'OwnableUnauthorizedAccount':
      return new AppError('FORBIDDEN', 'The managed wallet is not the owner of this contract.');
    case 'ERC20InsufficientBalance':
      return AppError.conflict(
        `Insufficient balance: the managed wallet holds ${String(decoded.args[1])} base units, ` +
          `the operation needs ${String(decoded.args[2])}.`,
      );
    case 'MaxSupplyReached':
      return AppError.conflict(
        `The collection has reached its max supply (${String(decoded.args[0])}).`,
      );
    case 'ERC721NonexistentToken':
      return AppError.conflict(`Token ${String(decoded.args[0])} does not exist or was burned.`);
    case 'ERC721IncorrectOwner':
    case 'ERC721InsufficientApproval':
      return new AppError('FORBIDDEN', 'The managed wallet does not hold this token.');
    default: {
      // A custom error's name is an identifier; a reason string is the contract's own words.
      const why = decoded?.name ?? plainNodeText(reason ?? '');
      return new AppError(
        'BAD_GATEWAY',
        `The contract reverted the transaction${why ? ` (${why})` : ''}.`,
      );
    }
  }
}
