// The airdrops section: the account's batches, newest first, each with a progress bar that
// follows an open batch (GET /batches/{id} every few seconds until it completes; a settled one is
// never asked again), and a batch's failed entries with the operation of each. Values are set
// as text only.
/* global document, setTimeout, clearTimeout */

import {
  $,
  announce,
  api,
  ApiError,
  button,
  el,
  errorText,
  formatTime,
  pagedTable,
  shorten,
  timeCell,
} from './dashboard-kit.js';
import { explorerLink } from './explorer.js';

/**
 * @typedef {'queued' | 'running' | 'completed' | 'completed_with_failures'} BatchStatus
 * @typedef {{ queued: number, submitted: number, confirmed: number, failed: number }} Counts
 * @typedef {{ batch_id: string, kind: 'token.airdrop' | 'nft.airdrop', status: BatchStatus,
 *   network: string, asset: string, total: number, counts: Counts, created_at: string,
 *   completed_at?: string }} Batch
 * @typedef {{ batches: Batch[], next_cursor: string | null }} BatchPage
 * @typedef {{ index: number, recipient: string, amount?: string, status: string,
 *   operation_id: string, tx: string | null, token_id?: string | null,
 *   mint_address?: string | null, error: { error: string, message: string | null } | null }}
 *   BatchItem
 * @typedef {{ items: BatchItem[], next_cursor: string | null }} BatchItemPage
 */

/** How often an open batch is asked for its counts. */
const POLL_MS = 2_500;
const OPEN = new Set(['queued', 'running']);
const STATUS_TEXT = /** @type {Record<string, string>} */ ({
  queued: 'queued',
  running: 'running',
  completed: 'completed',
  completed_with_failures: 'completed with failures',
});

/** @type {(error: unknown) => boolean} */
let sessionEnded = () => false;
/** @type {(id: string, trigger: HTMLButtonElement) => Promise<void>} */
let showOperation = async () => undefined;
/** The timer of each batch being followed. @type {Map<string, ReturnType<typeof setTimeout>>} */
const following = new Map();
/** Bumped on sign-out: an answer to a poll of an earlier session is dropped. */
let session = 0;
/** The batch whose failed entries are shown. @type {Batch | null} */
let shownBatch = null;

/** @param {Batch} batch */
function statusClass(batch) {
  if (batch.status === 'completed') return 'ok';
  if (batch.status === 'completed_with_failures') return 'failed';
  return 'pending';
}

/** "412 of 500 confirmed, 3 failed" @param {Batch} batch */
function progressText(batch) {
  const failed = batch.counts.failed > 0 ? `, ${batch.counts.failed} failed` : '';
  return `${batch.counts.confirmed} of ${batch.total} confirmed${failed}`;
}

/** What the batch is, in words, for labels. @param {Batch} batch */
function batchName(batch) {
  return `the ${batch.kind} of ${formatTime(batch.created_at)}`;
}

/** @param {number} part @param {number} total */
const percent = (part, total) => `${total > 0 ? (100 * part) / total : 0}%`;

/**
 * The row of one batch; `update` writes a newer view of the same batch into it in place, so a
 * focused button in it stays focused.
 * @param {Batch} batch
 */
function batchRow(batch) {
  const badge = el('span', {});
  const confirmed = el('span', { class: 'confirmed' });
  const failed = el('span', { class: 'failed' });
  const bar = el(
    'div',
    {
      class: 'progress',
      role: 'progressbar',
      'aria-valuemin': '0',
      'aria-label': `Progress of ${batchName(batch)}`,
    },
    [confirmed, failed],
  );
  // The bar says it to assistive technology (aria-valuetext); this is for the eye.
  const text = el('span', { class: 'progress-text', 'aria-hidden': 'true' });
  const failures = /** @type {HTMLButtonElement} */ (
    el('button', {
      type: 'button',
      class: 'button secondary small',
      text: 'Failed entries',
      'aria-label': `Failed entries of ${batchName(batch)}`,
      'aria-controls': 'airdrop-failures',
    })
  );
  const asset = el('code', { class: 'tx', title: batch.asset, text: shorten(batch.asset, 6) });
  const row = el('tr', { 'data-batch-id': batch.batch_id }, [
    timeCell(batch.created_at),
    el('td', { text: batch.kind }),
    el('td', { text: batch.network }),
    el('td', {}, [explorerLink(asset, batch.network, 'address', batch.asset)]),
    el('td', {}, [el('div', { class: 'batch-status' }, [badge, failures])]),
    el('td', {}, [el('div', { class: 'batch-progress' }, [bar, text])]),
  ]);
  let current = batch;
  /** @param {Batch} view */
  const update = (view) => {
    current = view;
    badge.className = `badge ${statusClass(view)}`;
    badge.textContent = STATUS_TEXT[view.status] ?? view.status;
    const settled = view.counts.confirmed + view.counts.failed;
    bar.setAttribute('aria-valuemax', String(view.total));
    bar.setAttribute('aria-valuenow', String(settled));
    bar.setAttribute('aria-valuetext', progressText(view));
    // CSSOM, which the page's Content-Security-Policy allows (a style attribute it would not).
    confirmed.style.width = percent(view.counts.confirmed, view.total);
    failed.style.width = percent(view.counts.failed, view.total);
    text.textContent = progressText(view);
    row.dataset.status = view.status;
    failures.hidden = view.counts.failed === 0;
  };
  update(batch);
  failures.addEventListener('click', () => void showFailures(current));
  follow(batch, row, update);
  return row;
}

/**
 * Asks for an open batch's counts every POLL_MS until it settles, while its row is on the page.
 * @param {Batch} batch
 * @param {HTMLElement} row
 * @param {(view: Batch) => void} update
 */
function follow(batch, row, update) {
  const id = batch.batch_id;
  clearTimeout(following.get(id));
  following.delete(id);
  if (!OPEN.has(batch.status)) return;
  const mine = session;
  const stale = () => mine !== session || !row.isConnected;
  const again = () =>
    following.set(
      id,
      setTimeout(() => void poll(), POLL_MS),
    );
  const poll = async () => {
    following.delete(id);
    if (stale()) return;
    // A tab in the background asks nothing; it catches up when shown again.
    if (document.hidden) return again();
    try {
      const view = /** @type {Batch} */ (await api('GET', `/batches/${encodeURIComponent(id)}`));
      if (stale()) return;
      update(view);
      if (OPEN.has(view.status)) return again();
      announce(`Airdrop ${STATUS_TEXT[view.status] ?? view.status}: ${progressText(view)}.`);
      if (shownBatch?.batch_id === id) void showFailures(view, false);
    } catch (error) {
      if (stale() || sessionEnded(error)) return;
      // Gone (404): nothing to follow. Anything else may pass: ask again later.
      if (!(error instanceof ApiError && error.status === 404)) again();
    }
  };
  again();
}

/** Loads the account's airdrops (the first page, or with false the next one). */
export const loadAirdrops = pagedTable(
  'airdrops',
  '/account/batches',
  (data) => {
    const page = /** @type {BatchPage} */ (data);
    return { items: page.batches, next_cursor: page.next_cursor };
  },
  batchRow,
  { sessionEnded: (error) => sessionEnded(error) },
);

// ---- Failed entries ---------------------------------------------------------------------------

/** @param {BatchItem} item */
function failureRow(item) {
  const details = /** @type {HTMLButtonElement} */ (
    el('button', {
      type: 'button',
      class: 'button secondary small',
      text: 'Details',
      'aria-label': `Details of entry #${item.index}`,
    })
  );
  details.addEventListener('click', () => void showOperation(item.operation_id, details));
  const error = item.error ? errorText(item.error) : '';
  return el('tr', { 'data-index': String(item.index), 'data-operation-id': item.operation_id }, [
    el('td', { text: `#${item.index}` }),
    el('td', {}, [el('code', { class: 'address', text: item.recipient })]),
    el('td', { class: 'error-text', text: error }),
    el('td', { class: 'actions' }, [details]),
  ]);
}

const loadFailures = pagedTable(
  'failures',
  () => `/batches/${encodeURIComponent(shownBatch?.batch_id ?? '')}/items`,
  (data) => {
    const page = /** @type {BatchItemPage} */ (data);
    return { items: page.items, next_cursor: page.next_cursor };
  },
  failureRow,
  { filters: () => '&status=failed', sessionEnded: (error) => sessionEnded(error), pageSize: 50 },
);

/**
 * Shows the failed entries of `batch` below the list, focused unless `moveFocus` is false.
 * @param {Batch} batch
 * @param {boolean} [moveFocus]
 */
async function showFailures(batch, moveFocus = true) {
  shownBatch = batch;
  const title = $('failures-title');
  title.textContent = `Failed entries of ${batchName(batch)} (${progressText(batch)})`;
  $('failures-body').replaceChildren();
  $('failures-table').hidden = true;
  $('failures-empty').hidden = true;
  button('failures-more').hidden = true;
  $('airdrop-failures').hidden = false;
  $('airdrop-failures').setAttribute('aria-busy', 'true');
  if (moveFocus) title.focus();
  await loadFailures(true);
  $('airdrop-failures').setAttribute('aria-busy', 'false');
}

function hideFailures() {
  shownBatch = null;
  $('airdrop-failures').hidden = true;
}

/** Stops following every batch and forgets what was shown (on sign-out). */
export function clearAirdrops() {
  session += 1;
  for (const timer of following.values()) clearTimeout(timer);
  following.clear();
  hideFailures();
}

/**
 * @param {{ sessionEnded: (error: unknown) => boolean,
 *   showOperation: (id: string, trigger: HTMLButtonElement) => Promise<void> }} hooks
 */
export function setUpAirdrops(hooks) {
  sessionEnded = hooks.sessionEnded;
  showOperation = hooks.showOperation;
  button('airdrops-more').addEventListener('click', () => void loadAirdrops(false));
  button('failures-more').addEventListener('click', () => void loadFailures(false));
  button('refresh-airdrops').addEventListener('click', () => void loadAirdrops(true));
  button('hide-failures').addEventListener('click', () => {
    const id = shownBatch?.batch_id;
    hideFailures();
    const trigger = document.querySelector(`tr[data-batch-id="${id ?? ''}"] button`);
    if (trigger instanceof HTMLElement) trigger.focus();
    else $('airdrops-title').focus();
  });
}
