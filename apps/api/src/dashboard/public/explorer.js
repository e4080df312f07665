// Links to the networks' public explorers (GET /networks): none on local chains, where the
// templates are null and a hash stays plain text.

import { api, el } from './dashboard-kit.js';

/** @typedef {{ network: string, explorer_tx_url: string | null,
 *   explorer_address_url: string | null }} NetworkInfo */

/** @type {Map<string, NetworkInfo>} */
const byNetwork = new Map();

/** Reads the explorer templates once; the page works without them. */
export async function loadExplorers() {
  try {
    const data = /** @type {{ networks: NetworkInfo[] }} */ (await api('GET', '/networks'));
    for (const info of data.networks) byNetwork.set(info.network, info);
  } catch {
    // No links then: hashes are shown as text.
  }
}

/**
 * `node`, inside a link to the explorer's page of `value` when the network has an explorer.
 * @param {HTMLElement} node
 * @param {string} network
 * @param {'tx' | 'address'} kind
 * @param {string} value
 * @returns {HTMLElement}
 */
export function explorerLink(node, network, kind, value) {
  const info = byNetwork.get(network);
  const template = kind === 'tx' ? info?.explorer_tx_url : info?.explorer_address_url;
  if (!template) return node;
  const href = template.replace(`{${kind}}`, encodeURIComponent(value));
  return el('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'explorer' }, [node]);
}
