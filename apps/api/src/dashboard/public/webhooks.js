// The webhooks section: add an endpoint (its signing secret shown once), send it a test ping,
// disable or enable it, delete it, and read its deliveries with every attempt. A client of the
// /webhooks routes on the session cookie; values are set as text only.
/* global window */

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
  showError,
} from './dashboard-kit.js';

/**
 * @typedef {{ id: string, url: string, description: string, event_types: string[],
 *   enabled: boolean, disabled_reason: string | null, failing_since: string | null,
 *   paused_until: string | null, created_at: string }} Endpoint
 * @typedef {Endpoint & { secret: string }} EndpointWithSecret
 * @typedef {{ attempt: number, attempted_at: string, response_status: number | null,
 *   latency_ms: number, error: string | null }} Attempt
 * @typedef {{ id: string, event_type: string, event_sequence: number | null,
 *   status: 'pending' | 'succeeded' | 'failed', attempts: number, next_attempt_at: string | null,
 *   last_response_status: number | null, last_error: string | null, created_at: string,
 *   attempt_log: Attempt[] }} Delivery
 */

/** The account event types (libs/database ACCOUNT_EVENT_TYPES, checked by the assets spec). */
export const EVENT_TYPES = [
  'operation.queued',
  'operation.submitted',
  'operation.confirmed',
  'operation.failed',
  'api_key.created',
  'api_key.revoked',
  'webhook_endpoint.disabled',
  'wallet.balance_low',
  'wallet.balance_restored',
  'batch.completed',
];

/** @type {(error: unknown) => boolean} */
let sessionEnded = () => false;
/** The endpoint whose deliveries are shown. @type {Endpoint | null} */
let shownEndpoint = null;

/** @param {Endpoint} endpoint */
function stateOf(endpoint) {
  if (!endpoint.enabled) {
    return {
      badge: 'revoked',
      text: 'Disabled',
      title: endpoint.disabled_reason ?? 'Disabled by the account',
    };
  }
  if (endpoint.failing_since) {
    const paused = endpoint.paused_until
      ? `; paused until ${formatTime(endpoint.paused_until)}`
      : '';
    return {
      badge: 'pending',
      text: 'Failing',
      title: `Failing since ${formatTime(endpoint.failing_since)}${paused}`,
    };
  }
  return { badge: 'ok', text: 'Enabled', title: '' };
}

/**
 * @param {string} text
 * @param {string} label the accessible name
 * @param {() => Promise<void>} action
 * @param {string} [kind] button class
 */
function actionButton(text, label, action, kind = 'secondary small') {
  const trigger = /** @type {HTMLButtonElement} */ (
    el('button', { type: 'button', class: `button ${kind}`, text, 'aria-label': label })
  );
  trigger.addEventListener('click', () => {
    showError('webhook-error');
    busy(trigger, action).catch((error) => {
      if (!sessionEnded(error)) showError('webhook-error', error);
    });
  });
  return trigger;
}

/** @param {Endpoint} endpoint */
function endpointRow(endpoint) {
  const state = stateOf(endpoint);
  const badge = el('span', { class: `badge ${state.badge}`, text: state.text });
  if (state.title) badge.title = state.title;
  const where = endpoint.description || endpoint.url;
  const path = `/webhooks/${encodeURIComponent(endpoint.id)}`;
  return el('tr', { 'data-webhook-id': endpoint.id }, [
    el('td', {}, [
      el('code', { class: 'address', text: endpoint.url }),
      endpoint.description ? el('div', { class: 'muted', text: endpoint.description }) : null,
    ]),
    el('td', {
      text: endpoint.event_types.length === 0 ? 'All events' : endpoint.event_types.join(', '),
    }),
    el('td', {}, [badge]),
    el('td', { class: 'actions' }, [
      endpoint.enabled
        ? actionButton('Test', `Send a test ping to ${where}`, async () => {
            await api('POST', `${path}/ping`);
            announce(`Test ping queued for ${where}.`);
            await showDeliveries(endpoint);
          })
        : null,
      actionButton(
        endpoint.enabled ? 'Disable' : 'Enable',
        `${endpoint.enabled ? 'Disable' : 'Enable'} ${where}`,
        async () => {
          await api('PATCH', path, { enabled: !endpoint.enabled });
          announce(`${where} ${endpoint.enabled ? 'disabled' : 'enabled'}.`);
          await loadWebhooks();
        },
      ),
      actionButton('Deliveries', `Deliveries to ${where}`, () => showDeliveries(endpoint)),
      actionButton(
        'Delete',
        `Delete ${where}`,
        async () => {
          if (!window.confirm(`Delete the endpoint ${endpoint.url} and its delivery log?`)) return;
          await api('DELETE', path);
          announce(`${where} deleted.`);
          if (shownEndpoint?.id === endpoint.id) hideDeliveries();
          await loadWebhooks();
        },
        'danger',
      ),
    ]),
  ]);
}

/** Loads the account's endpoints into the table. */
export async function loadWebhooks() {
  try {
    const data = /** @type {{ webhooks: Endpoint[] }} */ (await api('GET', '/webhooks'));
    $('webhooks-body').replaceChildren(...data.webhooks.map(endpointRow));
    $('webhooks-table').hidden = data.webhooks.length === 0;
    $('webhooks-empty').hidden = data.webhooks.length !== 0;
    const shown = data.webhooks.find((endpoint) => endpoint.id === shownEndpoint?.id);
    if (shown) await showDeliveries(shown);
  } catch (error) {
    if (sessionEnded(error)) return;
    if (error instanceof ApiError && error.status === 404) return;
    showError('webhook-error', error);
  }
}

/** @param {Attempt} attempt */
function attemptItem(attempt) {
  // The error says the most (it names the status too); a success has none.
  const outcome =
    attempt.error ??
    (attempt.response_status === null ? 'no answer' : `HTTP ${attempt.response_status}`);
  return el('li', {
    text: `#${attempt.attempt} ${formatTime(attempt.attempted_at)}: ${outcome}, ${attempt.latency_ms} ms`,
  });
}

/** @param {Delivery} delivery */
function deliveryRow(delivery) {
  const statusClass = { succeeded: 'ok', failed: 'failed', pending: 'pending' }[delivery.status];
  const next =
    delivery.status === 'pending' && delivery.next_attempt_at
      ? `next ${formatTime(delivery.next_attempt_at)}`
      : '';
  const log =
    delivery.attempt_log.length === 0
      ? el('span', { class: 'muted', text: 'not tried yet' })
      : el('details', {}, [
          el('summary', {
            text: `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
          }),
          el('ol', { class: 'attempts' }, delivery.attempt_log.map(attemptItem)),
        ]);
  return el('tr', { 'data-delivery-id': delivery.id, 'data-status': delivery.status }, [
    el('td', { text: formatTime(delivery.created_at) }),
    el('td', {
      text:
        delivery.event_sequence === null
          ? delivery.event_type
          : `${delivery.event_type} #${delivery.event_sequence}`,
    }),
    el('td', {}, [
      el('span', { class: `badge ${statusClass}`, text: delivery.status }),
      next ? el('div', { class: 'muted', text: next }) : null,
    ]),
    el('td', {}, [log]),
  ]);
}

/** @param {Endpoint} endpoint */
async function showDeliveries(endpoint) {
  shownEndpoint = endpoint;
  const data = /** @type {{ deliveries: Delivery[] }} */ (
    await api('GET', `/webhooks/${encodeURIComponent(endpoint.id)}/deliveries?limit=50`)
  );
  $('deliveries-title').textContent = `Deliveries to ${endpoint.url}`;
  $('deliveries-body').replaceChildren(...data.deliveries.map(deliveryRow));
  $('deliveries').hidden = false;
  $('deliveries-empty').hidden = data.deliveries.length !== 0;
}

function hideDeliveries() {
  shownEndpoint = null;
  $('deliveries').hidden = true;
}

/** The event types ticked in the form; none ticked means every type. */
function chosenTypes() {
  return EVENT_TYPES.filter((type) => input(`webhook-type-${type}`).checked);
}

/** @param {SubmitEvent} event */
async function addEndpoint(event) {
  event.preventDefault();
  showError('webhook-error');
  const form = byId('webhook-form', HTMLFormElement);
  const description = input('webhook-description').value.trim();
  const body = {
    url: input('webhook-url').value.trim(),
    event_types: chosenTypes(),
    ...(description ? { description } : {}),
  };
  try {
    const created = /** @type {EndpointWithSecret} */ (
      await busy(button('add-webhook'), () => api('POST', '/webhooks', body))
    );
    form.reset();
    const field = input('new-secret-value');
    field.value = created.secret;
    $('new-secret').hidden = false;
    announce('Endpoint added. Copy its signing secret now: it is shown only once.');
    field.focus();
    field.select();
    await loadWebhooks();
  } catch (error) {
    if (!sessionEnded(error)) showError('webhook-error', error);
  }
}

/** Forgets what only the signed-in account may see (on sign-out). */
export function clearWebhooks() {
  $('new-secret').hidden = true;
  input('new-secret-value').value = '';
  hideDeliveries();
}

/** @param {{ sessionEnded: (error: unknown) => boolean }} hooks */
export function setUpWebhooks(hooks) {
  sessionEnded = hooks.sessionEnded;
  $('webhook-types').append(
    ...EVENT_TYPES.map((type) =>
      el('label', { class: 'check' }, [
        el('input', { type: 'checkbox', id: `webhook-type-${type}`, value: type }),
        el('span', { text: type }),
      ]),
    ),
  );
  byId('webhook-form', HTMLFormElement).addEventListener(
    'submit',
    (event) => void addEndpoint(event),
  );
  button('dismiss-secret').addEventListener('click', () => {
    $('new-secret').hidden = true;
    input('new-secret-value').value = '';
    input('webhook-url').focus();
  });
  copyOnClick(
    button('copy-secret'),
    () => input('new-secret-value').value,
    'The signing secret',
    input('new-secret-value'),
  );
  button('refresh-deliveries').addEventListener('click', () => {
    if (shownEndpoint)
      void showDeliveries(shownEndpoint).catch((e) => showError('webhook-error', e));
  });
}
