// The assets section: the account's tokens and collections, a collection's items with their
// images, holders and the transaction of each change. Values are set as text; images load from
// the URLs the account gave (ipfs:// and ar:// through public gateways).
/* global document */

import {
  $,
  api,
  ApiError,
  busy,
  byId,
  el,
  formatTime,
  shorten,
  showError,
} from './dashboard-kit.js';
import { explorerLink } from './explorer.js';

/**
 * @typedef {{ kind: 'token' | 'collection', network: string, mint_address: string, name: string,
 *   symbol: string, image: string | null, created_at: string, tx: string | null,
 *   decimals?: number, supply?: string | null, minted?: string, max_supply?: string | null,
 *   seller_fee?: number }} Asset
 * @typedef {{ operation_id: string, kind: string, status: string, tx: string | null,
 *   at: string }} Change
 * @typedef {{ token_id: string, mint_address: string, name: string, owner: string,
 *   burned: boolean, image: string | null, created_at: string, changes: Change[] }} Item
 */

/** @type {(error: unknown) => boolean} */
let sessionEnded = () => false;

/**
 * A URL an <img> can load: http(s) as given, ipfs:// and ar:// through public gateways.
 * @param {string | null} uri
 */
export function imageSource(uri) {
  if (!uri) return null;
  if (uri.startsWith('ipfs://')) return `https://ipfs.io/ipfs/${uri.slice('ipfs://'.length)}`;
  if (uri.startsWith('ar://')) return `https://arweave.net/${uri.slice('ar://'.length)}`;
  return /^https?:\/\//.test(uri) ? uri : null;
}

/** @param {string | null} uri @param {string} alt */
function thumbnail(uri, alt) {
  const source = imageSource(uri);
  return source
    ? el('img', {
        class: 'thumb',
        src: source,
        alt,
        loading: 'lazy',
        referrerpolicy: 'no-referrer',
      })
    : el('span', { class: 'thumb none', 'aria-hidden': 'true' });
}

/** @param {string} network @param {string | null} tx */
function txOf(network, tx) {
  if (!tx) return el('span', { class: 'muted', text: '—' });
  return explorerLink(
    el('code', { class: 'tx', title: tx, text: shorten(tx, 8) }),
    network,
    'tx',
    tx,
  );
}

/** @param {Asset} asset */
function amountOf(asset) {
  if (asset.kind === 'token') return asset.supply ?? 'unavailable';
  const cap = asset.max_supply ? ` / ${asset.max_supply}` : '';
  return `${asset.minted ?? '0'}${cap} minted`;
}

/** @param {Asset} asset */
function assetRow(asset) {
  const royalty =
    asset.kind === 'collection' ? `${((asset.seller_fee ?? 0) / 100).toFixed(2)} %` : '—';
  const items =
    asset.kind === 'collection'
      ? /** @type {HTMLButtonElement} */ (
          el('button', {
            type: 'button',
            class: 'button secondary small',
            text: 'Items',
            'aria-label': `Items of ${asset.name}`,
          })
        )
      : null;
  items?.addEventListener(
    'click',
    () => void showItems(asset, /** @type {HTMLButtonElement} */ (items)),
  );
  return el('tr', { 'data-asset': asset.mint_address, 'data-kind': asset.kind }, [
    el('td', {}, [
      thumbnail(asset.image, ''),
      el('span', { text: ` ${asset.name} ` }),
      el('span', { class: 'muted', text: asset.symbol }),
    ]),
    el('td', { text: asset.kind }),
    el('td', { text: asset.network }),
    el('td', { class: 'amount', text: amountOf(asset) }),
    el('td', { text: royalty }),
    el('td', {}, [txOf(asset.network, asset.tx)]),
    el('td', { class: 'actions' }, [items]),
  ]);
}

/** Loads the account's assets (the kind chosen in the filter) into the table. */
export async function loadAssets() {
  showError('assets-error');
  const kind = byId('assets-kind', HTMLSelectElement).value;
  try {
    const data = /** @type {{ assets: Asset[] }} */ (
      await api('GET', `/account/assets?limit=50${kind ? `&kind=${kind}` : ''}`)
    );
    $('assets-body').replaceChildren(...data.assets.map(assetRow));
    $('assets-table').hidden = data.assets.length === 0;
    $('assets-empty').hidden = data.assets.length !== 0;
  } catch (error) {
    if (sessionEnded(error)) return;
    if (error instanceof ApiError && error.status === 404) return;
    showError('assets-error', error);
  }
}

/** @param {Item} item @param {string} network */
function itemCard(item, network) {
  const state = item.burned
    ? el('span', { class: 'badge failed', text: 'burned' })
    : el('span', { class: 'muted', text: `held by ${shorten(item.owner, 6)}` });
  return el('li', { class: 'item', 'data-token-id': item.token_id }, [
    thumbnail(item.image, item.name),
    el('div', {}, [
      el('h4', { text: `${item.name} #${shorten(item.token_id, 6)}` }),
      state,
      el(
        'ol',
        { class: 'changes' },
        item.changes.map((change) =>
          el('li', { 'data-kind': change.kind }, [
            document.createTextNode(
              `${change.kind} · ${change.status} · ${formatTime(change.at)} `,
            ),
            txOf(network, change.tx),
          ]),
        ),
      ),
    ]),
  ]);
}

/** @param {Asset} collection @param {HTMLButtonElement} trigger */
async function showItems(collection, trigger) {
  const dialog = byId('items-dialog', HTMLDialogElement);
  showError('items-error');
  $('items-title').textContent = `${collection.name}: items`;
  try {
    const path = `/account/assets/${encodeURIComponent(collection.mint_address)}/items?limit=50&network=${collection.network}`;
    const data = /** @type {{ items: Item[] }} */ (await busy(trigger, () => api('GET', path)));
    $('items-list').replaceChildren(
      ...data.items.map((item) => itemCard(item, collection.network)),
    );
    $('items-empty').hidden = data.items.length !== 0;
  } catch (error) {
    if (sessionEnded(error)) return;
    $('items-list').replaceChildren();
    showError('items-error', error);
  }
  dialog.showModal();
}

/** @param {{ sessionEnded: (error: unknown) => boolean }} hooks */
export function setUpAssets(hooks) {
  sessionEnded = hooks.sessionEnded;
  byId('assets-kind', HTMLSelectElement).addEventListener('change', () => void loadAssets());
  byId('refresh-assets', HTMLButtonElement).addEventListener('click', () => void loadAssets());
}
