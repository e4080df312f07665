// One operation in full, in a dialog: what was asked, every transaction version it signed (fee
// bumps, re-signings), its error and its events. Values are set as text only.
/* global document */

import { el, errorText, formatTime, shorten } from './dashboard-kit.js';
import { explorerLink } from './explorer.js';

/**
 * @typedef {{ operation_id: string, kind: string, network: string, status: string,
 *   tx: string | null, created_at: string, error?: { error: string, message: string },
 *   retries?: { attempts: number, last_error: string | null } }} OperationView
 * @typedef {{ tx: string, nonce: string | null, last_valid_block_height: string | null,
 *   fees: Record<string, string> | null, signed_at: string, landed: boolean }} TransactionView
 * @typedef {{ id: string, sequence: number, type: string, created_at: string,
 *   data: Record<string, unknown> }} EventView
 * @typedef {{ operation: OperationView,
 *   request: { intent: Record<string, unknown>, details: Record<string, unknown> },
 *   transactions: TransactionView[], events: EventView[], updated_at: string,
 *   deliveries: { id: string, event_type: string, status: string, attempts: number,
 *     last_response_status: number | null }[],
 *   settled_at: string | null }} OperationDetail
 */

/** @param {string} term @param {Node | string} value */
function entry(term, value) {
  return [
    el('dt', { text: term }),
    el('dd', {}, [typeof value === 'string' ? document.createTextNode(value) : value]),
  ];
}

/** @param {Record<string, string> | null} fees */
function feesText(fees) {
  if (!fees || Object.keys(fees).length === 0) return '—';
  return Object.entries(fees)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}

/** @param {TransactionView} transaction @param {string} network */
function transactionRow(transaction, network) {
  const code = el('code', {
    class: 'tx',
    title: transaction.tx,
    text: shorten(transaction.tx, 10),
  });
  return el('tr', { 'data-tx': transaction.tx }, [
    el('td', {}, [explorerLink(code, network, 'tx', transaction.tx)]),
    el('td', { text: transaction.nonce ?? transaction.last_valid_block_height ?? '—' }),
    el('td', { text: feesText(transaction.fees) }),
    el('td', { text: formatTime(transaction.signed_at) }),
    el('td', { text: transaction.landed ? 'Landed' : '' }),
  ]);
}

/** @param {EventView} event */
function eventItem(event) {
  return el('li', { 'data-event-type': event.type }, [
    el('span', { class: 'mono', text: `#${event.sequence}` }),
    document.createTextNode(` ${event.type} · ${formatTime(event.created_at)}`),
  ]);
}

/**
 * The dialog's content for one operation.
 * @param {OperationDetail} detail
 * @returns {HTMLElement[]}
 */
export function operationDetail(detail) {
  const operation = detail.operation;
  const facts = el('dl', { class: 'facts' }, [
    ...entry('Status', operation.status),
    ...entry('Network', operation.network),
    ...entry('Accepted', formatTime(operation.created_at)),
    ...entry('Last change', formatTime(detail.updated_at)),
    ...entry('Settled', detail.settled_at ? formatTime(detail.settled_at) : '—'),
    ...entry(
      'Transaction',
      operation.tx
        ? explorerLink(
            el('code', { class: 'tx', text: operation.tx }),
            operation.network,
            'tx',
            operation.tx,
          )
        : '—',
    ),
  ]);
  const problem = operation.error
    ? el('p', { class: 'form-error', text: errorText(operation.error) })
    : operation.retries
      ? el('p', {
          class: 'muted',
          text: `Retrying (${operation.retries.attempts} attempts): ${operation.retries.last_error ?? ''}`,
        })
      : null;
  const transactions =
    detail.transactions.length === 0
      ? el('p', { class: 'muted', text: 'Nothing signed yet.' })
      : el('div', { class: 'table-wrap' }, [
          el('table', { class: 'transactions' }, [
            el('thead', {}, [
              el('tr', {}, [
                el('th', { scope: 'col', text: 'Transaction' }),
                el('th', { scope: 'col', text: 'Nonce / valid until' }),
                el('th', { scope: 'col', text: 'Fees' }),
                el('th', { scope: 'col', text: 'Signed' }),
                el('th', { scope: 'col', text: '' }),
              ]),
            ]),
            el(
              'tbody',
              {},
              detail.transactions.map((transaction) =>
                transactionRow(transaction, operation.network),
              ),
            ),
          ]),
        ]);
  return [
    el('h2', { id: 'op-detail-title', text: `${operation.kind} · ${operation.operation_id}` }),
    facts,
    problem,
    el('h3', { text: 'Request' }),
    el('pre', { class: 'request', text: JSON.stringify(detail.request, null, 2) }),
    el('h3', { text: `Transactions signed (${detail.transactions.length})` }),
    transactions,
    el('h3', { text: 'Events' }),
    el('ol', { class: 'events' }, detail.events.map(eventItem)),
    el('h3', { text: 'Webhook deliveries' }),
    detail.deliveries.length === 0
      ? el('p', { class: 'muted', text: 'None: no endpoint takes these events.' })
      : el(
          'ul',
          { class: 'deliveries-of-operation' },
          detail.deliveries.map((delivery) =>
            el('li', {
              'data-status': delivery.status,
              text:
                `${delivery.event_type}: ${delivery.status}, ${delivery.attempts} attempt(s)` +
                (delivery.last_response_status === null
                  ? ''
                  : `, last answer HTTP ${delivery.last_response_status}`),
            }),
          ),
        ),
  ].filter((node) => node !== null);
}
