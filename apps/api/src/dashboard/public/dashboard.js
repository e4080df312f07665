// The dashboard: a small client of the /account JSON endpoints, on the session cookie. Plain
// JavaScript the browser runs as is (no framework, no build step), type-checked through JSDoc
// by the tsconfig.json beside it. Data from the API is only ever set as text, never as HTML.
// Loaded as a module: strict, deferred, and nothing leaks into the page's globals.
/* global document, window */

import {
  $,
  announce,
  api,
  ApiError,
  busy,
  button,
  byId,
  copyOnClick,
  el,
  formatTime,
  input,
  messageOf,
  pagedTable,
  shorten,
  showError,
  timeCell,
} from './dashboard-kit.js';
import { clearAirdrops, loadAirdrops, setUpAirdrops } from './airdrops.js';
import { loadAssets, setUpAssets } from './assets.js';
import { explorerLink, loadExplorers } from './explorer.js';
import { operationDetail } from './operation-detail.js';
import { latencySummary, pendingNowSummary, usageChart } from './usage-chart.js';
import { clearPolicies, loadPolicies, setUpPolicies } from './policies.js';
import { clearWebhooks, loadWebhooks, setUpWebhooks } from './webhooks.js';

/**
 * @typedef {{ id: string, email: string }} Account
 * @typedef {{ id: string, name: string, prefix: string, created_at: string,
 *   revoked_at: string | null }} ApiKey
 * @typedef {ApiKey & { key: string }} IssuedApiKey
 * @typedef {{ network: string, resolved_network: string, public_key: string,
 *   balance: string | null, currency: string, low_balance: boolean | null,
 *   low_balance_threshold: string, estimated_operations_left: number | null }} Wallet
 * @typedef {{ operation_id: string, kind: string, network: string, status: string,
 *   tx: string | null, created_at: string }} Operation
 * @typedef {{ operations: Operation[], next_cursor: string | null }} OperationsPage
 * @typedef {{ seq: number, type: string, details: Record<string, unknown>,
 *   occurred_at: string }} AuditEntry
 * @typedef {{ entries: AuditEntry[], next_cursor: string | null }} AuditPage
 * @typedef {import('./usage-chart.js').Usage} Usage
 * @typedef {import('./operation-detail.js').OperationDetail} OperationDetail
 */

/** The networks of the spec (libs/config NETWORKS, checked by dashboard-assets.spec.ts). */
const NETWORKS = [
  'solana',
  'evm',
  'ethereum',
  'sepolia',
  'base',
  'polygon',
  'bsc',
  'monad',
  'sei',
  'blast',
  'sonic',
  'linea',
  'scroll',
  'mantle',
  'zora',
  'optimism',
  'arbitrum',
  'avalanche',
  'boba',
  'metis',
  'bera',
  'celo',
];
const FAMILY_NAMES = /** @type {Record<string, string>} */ ({ solana: 'Solana', evm: 'EVM' });

// ---- Views ------------------------------------------------------------------------------------

/** @param {string} [message] @param {boolean} [moveFocus] */
function showSignedOut(message, moveFocus = true) {
  $('loading').hidden = true;
  $('signed-in').hidden = true;
  $('session').hidden = true;
  $('signed-out').hidden = false;
  hideNewKey();
  clearWebhooks();
  clearAirdrops();
  clearPolicies();
  if (message) announce(message);
  if (moveFocus) $('signed-out-title').focus();
}

/** @param {Account} account @param {string} [message] */
function showSignedIn(account, message) {
  $('loading').hidden = true;
  $('signed-out').hidden = true;
  $('signed-in').hidden = false;
  $('session').hidden = false;
  $('session-email').textContent = account.email;
  byId('login-form', HTMLFormElement).reset();
  byId('register-form', HTMLFormElement).reset();
  showError('login-error');
  showError('register-error');
  if (message) {
    announce(message);
    $('signed-in-title').focus();
  }
  void loadKeys();
  void loadWallets();
  void loadOperations(true);
  void loadAirdrops(true);
  void loadActivity(true);
  void loadUsage();
  void loadWebhooks();
  void loadAssets();
  void loadPolicies();
}

/**
 * A 401 on a session route means the session ended (expired, or signed out elsewhere).
 * @param {unknown} error
 */
function sessionEnded(error) {
  if (!(error instanceof ApiError) || error.status !== 401) return false;
  showSignedOut('Your session has ended. Sign in again.');
  return true;
}

// ---- API keys ---------------------------------------------------------------------------------

async function loadKeys() {
  try {
    const data = /** @type {{ api_keys: ApiKey[] }} */ (await api('GET', '/account/api-keys'));
    renderKeys(data.api_keys);
  } catch (error) {
    if (!sessionEnded(error)) showError('key-error', error);
  }
}

/** @param {ApiKey[]} keys */
function renderKeys(keys) {
  const body = $('keys-body');
  body.replaceChildren(...keys.map(keyRow));
  $('keys-table').hidden = keys.length === 0;
  $('keys-empty').hidden = keys.length !== 0;
}

/** @param {ApiKey} key */
function keyRow(key) {
  const revoked = key.revoked_at !== null;
  let action = null;
  if (!revoked) {
    action = /** @type {HTMLButtonElement} */ (
      el('button', {
        type: 'button',
        class: 'button danger',
        text: 'Revoke',
        'aria-label': `Revoke the key ${key.name} (${key.prefix}…)`,
      })
    );
    const revokeButton = action;
    action.addEventListener('click', () => void revokeKey(key, revokeButton));
  }
  const badge = el('span', {
    class: `badge ${revoked ? 'revoked' : 'ok'}`,
    text: revoked ? 'Revoked' : 'Active',
  });
  if (revoked) badge.title = `Revoked ${formatTime(key.revoked_at)}`;
  return el('tr', { 'data-key-id': key.id }, [
    el('td', { text: key.name }),
    el('td', {}, [el('code', { text: `${key.prefix}…` })]),
    timeCell(key.created_at),
    el('td', {}, [badge]),
    el('td', { class: 'actions' }, [action]),
  ]);
}

/** @param {ApiKey} key @param {HTMLButtonElement} trigger */
async function revokeKey(key, trigger) {
  const question = `Revoke the key "${key.name}" (${key.prefix}…)? Calls with it answer 401 from now on.`;
  if (!window.confirm(question)) return;
  showError('key-error');
  try {
    await busy(trigger, () => api('DELETE', `/account/api-keys/${encodeURIComponent(key.id)}`));
    announce(`API key "${key.name}" revoked.`);
    $('keys-title').focus();
    await Promise.all([loadKeys(), loadActivity(true)]);
  } catch (error) {
    if (!sessionEnded(error)) showError('key-error', error);
  }
}

/** @param {SubmitEvent} event */
async function issueKey(event) {
  event.preventDefault();
  const form = byId('key-form', HTMLFormElement);
  const name = input('key-name').value.trim();
  showError('key-error');
  try {
    const issued = /** @type {IssuedApiKey} */ (
      await busy(button('issue-key'), () => api('POST', '/account/api-keys', name ? { name } : {}))
    );
    form.reset();
    const field = input('new-key-value');
    field.value = issued.key;
    $('new-key').hidden = false;
    announce('API key issued. Copy it now: it is shown only once.');
    field.focus();
    field.select();
    await Promise.all([loadKeys(), loadActivity(true)]);
  } catch (error) {
    if (!sessionEnded(error)) showError('key-error', error);
  }
}

function hideNewKey() {
  $('new-key').hidden = true;
  input('new-key-value').value = '';
}

// ---- Wallets ----------------------------------------------------------------------------------

async function loadWallets() {
  const list = $('wallets');
  list.setAttribute('aria-busy', 'true');
  try {
    const data = /** @type {{ wallets: Wallet[] }} */ (await api('GET', '/account/wallets'));
    list.replaceChildren(...data.wallets.map(walletItem));
  } catch (error) {
    if (!sessionEnded(error)) {
      list.replaceChildren(
        el('li', { class: 'form-error', role: 'alert', text: messageOf(error) }),
      );
    }
  } finally {
    list.setAttribute('aria-busy', 'false');
  }
}

/** @param {Wallet} wallet */
function walletItem(wallet) {
  const family = FAMILY_NAMES[wallet.network] ?? wallet.network;
  const titleId = `wallet-${wallet.network}`;
  const balance =
    wallet.balance === null
      ? el('p', {
          class: 'balance unavailable',
          text: `Balance unavailable: the ${wallet.resolved_network} chain did not answer.`,
        })
      : el('p', { class: 'balance', text: `${wallet.balance} ${wallet.currency}` });
  const copy = /** @type {HTMLButtonElement} */ (
    el('button', {
      type: 'button',
      class: 'button secondary small',
      text: 'Copy',
      'aria-label': `Copy the ${family} wallet address`,
    })
  );
  copyOnClick(copy, () => wallet.public_key, `The ${family} address`);
  return el('li', { class: 'wallet', 'aria-labelledby': titleId }, [
    el('h3', { id: titleId }, [
      document.createTextNode(`${family} wallet`),
      el('span', { class: 'network', text: wallet.resolved_network }),
      ...(wallet.low_balance ? [lowBalanceBadge(wallet)] : []),
    ]),
    balance,
    ...(wallet.estimated_operations_left === null ? [] : [operationsLeft(wallet)]),
    el('div', { class: 'address-row' }, [
      el('code', { class: 'address', text: wallet.public_key }),
      copy,
    ]),
  ]);
}

/** @param {Wallet} wallet */
function lowBalanceBadge(wallet) {
  return el('span', {
    class: 'badge low',
    text: 'Low balance',
    title: `Below ${wallet.low_balance_threshold} ${wallet.currency}: fund it to keep operations flowing`,
  });
}

/** @param {Wallet} wallet */
function operationsLeft(wallet) {
  const count = wallet.estimated_operations_left ?? 0;
  const noun = count === 1 ? 'operation' : 'operations';
  return el('p', {
    class: 'operations-left',
    text: `About ${count.toLocaleString('en-US')} ${noun} left at today's fees`,
  });
}

/** @param {string} value */
function txCode(value) {
  return el('code', { class: 'tx', title: value, text: shorten(value, 8) });
}

// ---- Operations -------------------------------------------------------------------------------

/** @param {string} status */
function statusClass(status) {
  if (status === 'confirmed') return 'ok';
  if (status === 'failed') return 'failed';
  return 'pending';
}

/** @param {Operation} operation */
function operationRow(operation) {
  const tx = operation.tx
    ? explorerLink(txCode(operation.tx), operation.network, 'tx', operation.tx)
    : el('span', { class: 'muted', text: '—' });
  return el('tr', { 'data-operation-id': operation.operation_id }, [
    timeCell(operation.created_at),
    el('td', { text: operation.kind }),
    el('td', { text: operation.network }),
    el('td', {}, [
      el('span', { class: `badge ${statusClass(operation.status)}`, text: operation.status }),
    ]),
    el('td', {}, [tx]),
    el('td', { class: 'actions' }, [detailsButton(operation)]),
  ]);
}

/** @param {Operation} operation */
function detailsButton(operation) {
  const trigger = /** @type {HTMLButtonElement} */ (
    el('button', {
      type: 'button',
      class: 'button secondary small',
      text: 'Details',
      'aria-label': `Details of the ${operation.kind} operation of ${formatTime(operation.created_at)}`,
    })
  );
  trigger.addEventListener('click', () => void showOperation(operation.operation_id, trigger));
  return trigger;
}

/** @param {string} id @param {HTMLButtonElement} trigger */
async function showOperation(id, trigger) {
  const dialog = byId('op-detail', HTMLDialogElement);
  showError('op-detail-error');
  try {
    const detail = /** @type {OperationDetail} */ (
      await busy(trigger, () => api('GET', `/account/operations/${encodeURIComponent(id)}`))
    );
    $('op-detail-body').replaceChildren(...operationDetail(detail));
  } catch (error) {
    if (sessionEnded(error)) return;
    $('op-detail-body').replaceChildren();
    showError('op-detail-error', error);
  }
  dialog.showModal();
}

/** The filter form's choices as query parameters. */
function operationFilters() {
  return ['status', 'network', 'kind']
    .map((name) => [name, byId(`ops-${name}`, HTMLSelectElement).value])
    .filter(([, value]) => value)
    .map(([name, value]) => `&${name}=${encodeURIComponent(value ?? '')}`)
    .join('');
}

const loadOperations = pagedTable(
  'ops',
  '/account/operations',
  (data) => {
    const page = /** @type {OperationsPage} */ (data);
    return { items: page.operations, next_cursor: page.next_cursor };
  },
  operationRow,
  { filters: operationFilters, sessionEnded },
);

// ---- Usage -----------------------------------------------------------------------------------

/** @type {'day' | 'week'} */
let usageWindow = 'day';

async function loadUsage() {
  const figure = $('usage-chart');
  figure.setAttribute('aria-busy', 'true');
  showError('usage-error');
  try {
    const usage = /** @type {Usage} */ (await api('GET', `/account/usage?window=${usageWindow}`));
    figure.replaceChildren(usageChart(usage));
    $('usage-latency').textContent = latencySummary(usage.confirmation_latency_ms);
    showPendingNow(usage.pending_now);
  } catch (error) {
    if (!sessionEnded(error)) showError('usage-error', error);
  } finally {
    figure.setAttribute('aria-busy', 'false');
  }
}

/** @param {import('./usage-chart.js').PendingNow} pending */
function showPendingNow(pending) {
  const { count, split } = pendingNowSummary(pending);
  const badge = $('usage-pending');
  badge.textContent = count;
  badge.className = pending.total > 0 ? 'badge pending' : 'badge';
  $('usage-pending-split').textContent = split;
}

/** @param {'day' | 'week'} window */
function showUsage(window) {
  usageWindow = window;
  button('usage-day').setAttribute('aria-pressed', String(window === 'day'));
  button('usage-week').setAttribute('aria-pressed', String(window === 'week'));
  void loadUsage();
}

// ---- Activity (the audit trail) ---------------------------------------------------------------

const EVENT_NAMES = /** @type {Record<string, string>} */ ({
  'account.created': 'Account created',
  'login.succeeded': 'Signed in',
  'login.failed': 'Sign-in failed (wrong password)',
  'session.ended': 'Signed out',
  'api_key.issued': 'API key issued',
  'api_key.revoked': 'API key revoked',
  'managed_key.used': 'Managed key signed a transaction',
  'managed_key.rewrapped': 'Managed keys wrapped under a new master key',
  'signing_policy.updated': 'Signing policies changed',
  'signing_policy.violated': 'A write refused by a signing policy',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'webhook_endpoint.secret_rotated': 'Webhook secret rotated',
});

/** @param {unknown} value */
const asText = (value) => (typeof value === 'string' ? value : '');

/**
 * What the entry was about, in a few words (and the transaction, for a signing).
 * @param {AuditEntry} entry
 */
function auditSubject(entry) {
  const details = entry.details;
  switch (entry.type) {
    case 'api_key.issued':
    case 'api_key.revoked':
      return [document.createTextNode(`${asText(details.name)} (${asText(details.prefix)}…) `)];
    case 'managed_key.used':
      return [
        document.createTextNode(`${asText(details.kind)} on ${asText(details.network)} `),
        details.tx
          ? explorerLink(
              txCode(asText(details.tx)),
              asText(details.network),
              'tx',
              asText(details.tx),
            )
          : null,
      ];
    case 'account.created':
      return [document.createTextNode(asText(details.email))];
    case 'webhook_endpoint.created':
    case 'webhook_endpoint.deleted':
      return [document.createTextNode(asText(details.url))];
    default:
      return [];
  }
}

/** @param {AuditEntry} entry */
function auditRow(entry) {
  return el('tr', { 'data-audit-seq': String(entry.seq), 'data-audit-type': entry.type }, [
    timeCell(entry.occurred_at),
    el('td', { text: EVENT_NAMES[entry.type] ?? entry.type }),
    el('td', {}, auditSubject(entry)),
  ]);
}

const loadActivity = pagedTable(
  'audit',
  '/account/audit',
  (data) => {
    const page = /** @type {AuditPage} */ (data);
    return { items: page.entries, next_cursor: page.next_cursor };
  },
  auditRow,
  { sessionEnded },
);

// ---- Sign in, create an account, sign out -----------------------------------------------------

/**
 * @param {'login' | 'register'} prefix the form's ids: `${prefix}-form`, `${prefix}-email`, ...
 * @param {string} path
 * @param {(account: Account) => string} message
 */
function credentialsForm(prefix, path, message) {
  const form = byId(`${prefix}-form`, HTMLFormElement);
  const submit = async () => {
    showError(`${prefix}-error`);
    const body = {
      email: input(`${prefix}-email`).value.trim(),
      password: input(`${prefix}-password`).value,
    };
    const trigger = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
    try {
      const account = /** @type {Account} */ (await busy(trigger, () => api('POST', path, body)));
      showSignedIn(account, message(account));
    } catch (error) {
      showError(`${prefix}-error`, error);
      input(`${prefix}-password`).focus();
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
}

async function signOut() {
  try {
    await busy(button('sign-out'), () => api('POST', '/account/logout'));
    showSignedOut('Signed out.');
  } catch (error) {
    announce(messageOf(error), true);
  }
}

async function start() {
  credentialsForm('login', '/account/login', (account) => `Signed in as ${account.email}.`);
  credentialsForm(
    'register',
    '/account/register',
    (account) => `Account created for ${account.email}, with a Solana and an EVM wallet.`,
  );
  byId('key-form', HTMLFormElement).addEventListener('submit', (event) => void issueKey(event));
  button('sign-out').addEventListener('click', () => void signOut());
  button('refresh-wallets').addEventListener('click', () => void loadWallets());
  button('ops-more').addEventListener('click', () => void loadOperations(false));
  button('audit-more').addEventListener('click', () => void loadActivity(false));
  button('usage-day').addEventListener('click', () => showUsage('day'));
  byId('ops-network', HTMLSelectElement).append(
    ...NETWORKS.map((network) => el('option', { value: network, text: network })),
  );
  setUpWebhooks({ sessionEnded });
  setUpPolicies({ sessionEnded });
  setUpAssets({ sessionEnded });
  setUpAirdrops({ sessionEnded, showOperation });
  await loadExplorers();
  byId('ops-filter', HTMLFormElement).addEventListener('change', () => void loadOperations(true));
  button('usage-week').addEventListener('click', () => showUsage('week'));
  button('dismiss-key').addEventListener('click', () => {
    hideNewKey();
    input('key-name').focus();
  });
  copyOnClick(
    button('copy-key'),
    () => input('new-key-value').value,
    'The API key',
    input('new-key-value'),
  );

  try {
    showSignedIn(/** @type {Account} */ (await api('GET', '/account')));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      showSignedOut(undefined, false);
    } else {
      $('loading').hidden = true;
      announce(messageOf(error), true);
    }
  }
}

void start();
