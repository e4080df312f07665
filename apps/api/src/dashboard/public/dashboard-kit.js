// The dashboard's kit: its one HTTP client of the JSON API (the envelope unwrapped, errors as
// ApiError with the envelope's message) and the DOM helpers every section uses. Data from the
// API is only ever set as text, never as HTML.
/* global document, navigator, fetch, setTimeout, clearTimeout */

// ---- HTTP -------------------------------------------------------------------------------------

export class ApiError extends Error {
  /** @param {number} status HTTP status, 0 when the service could not be reached */
  constructor(status, message = '') {
    super(message);
    this.status = status;
  }
}

/**
 * Calls the API; resolves to the envelope's `data`, rejects with an ApiError carrying the
 * envelope's `message`, which the page shows as it is.
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<unknown>}
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check the connection and retry.');
  }
  /** @type {unknown} */
  let envelope = null;
  try {
    envelope = JSON.parse(await response.text());
  } catch {
    envelope = null;
  }
  if (response.ok && isRecord(envelope) && envelope.success === true) return envelope.data;
  const message =
    isRecord(envelope) && typeof envelope.message === 'string'
      ? envelope.message
      : `The request failed (HTTP ${response.status}).`;
  throw new ApiError(response.status, message);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isRecord(value) {
  return typeof value === 'object' && value !== null;
}

/**
 * An operation's error in one line: its name, then its message, unless the message begins with
 * the name already ("Insufficient funds: 0x... holds ...") or there is none.
 * @param {{ error: string, message?: string | null }} error
 */
export function errorText({ error, message }) {
  if (!message) return error;
  return message.toLowerCase().startsWith(error.toLowerCase()) ? message : `${error}: ${message}`;
}

/** @param {unknown} error */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

// ---- DOM helpers ------------------------------------------------------------------------------

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T }} type
 * @returns {T}
 */
export function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`The page lacks #${id}`);
  return node;
}

/** @param {string} id */
export const $ = (id) => byId(id, HTMLElement);
/** @param {string} id */
export const input = (id) => byId(id, HTMLInputElement);
/** @param {string} id */
export const button = (id) => byId(id, HTMLButtonElement);

/**
 * @param {string} tag
 * @param {Record<string, string>} [attributes] `text` sets the text content
 * @param {(Node | null)[]} [children]
 */
export function el(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** @param {string | null} iso */
export function formatTime(iso) {
  const date = new Date(iso ?? '');
  if (Number.isNaN(date.getTime())) return iso ?? '';
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** @param {string} iso */
export function timeCell(iso) {
  return el('td', {}, [el('time', { datetime: iso, text: formatTime(iso) })]);
}

/** @param {string} value @param {number} keep */
export function shorten(value, keep) {
  return value.length <= keep * 2 + 1 ? value : `${value.slice(0, keep)}…${value.slice(-keep)}`;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let statusTimer;

/** The page's live region: screen readers announce what is written here. */
export function announce(message = '', isError = false) {
  const status = $('status');
  status.textContent = message;
  status.classList.toggle('error', isError);
  clearTimeout(statusTimer);
  if (message && !isError) statusTimer = setTimeout(() => (status.textContent = ''), 8000);
}

/** @param {string} id @param {unknown} [error] */
export function showError(id, error) {
  $(id).textContent = error === undefined ? '' : messageOf(error);
}

/**
 * Disables a button while its request runs.
 * @template T
 * @param {HTMLButtonElement} target
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function busy(target, work) {
  target.disabled = true;
  target.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    target.disabled = false;
    target.removeAttribute('aria-busy');
  }
}

/**
 * Copies with the Clipboard API where the page may (a secure context: https or localhost), else
 * selects the text so that Ctrl+C copies it.
 * @param {HTMLButtonElement} trigger
 * @param {() => string} text
 * @param {string} label
 * @param {HTMLInputElement} [field]
 */
export function copyOnClick(trigger, text, label, field) {
  trigger.addEventListener('click', () => {
    const copied = navigator.clipboard?.writeText(text()) ?? Promise.reject(new Error('no API'));
    copied.then(
      () => {
        trigger.textContent = 'Copied';
        announce(`${label} copied to the clipboard.`);
        setTimeout(() => (trigger.textContent = 'Copy'), 2000);
      },
      () => {
        field?.focus();
        field?.select();
        announce('This browser blocked copying: select the text and press Ctrl+C (⌘C).', true);
      },
    );
  });
}

// ---- Paged tables -----------------------------------------------------------------------------

/**
 * A table of the account's records, newest first, a page at a time (`next_cursor` is opaque),
 * made of the elements `${prefix}-table`, `-body`, `-empty`, `-error` and `-more`. A 404 means
 * this deployment has no such endpoint yet: there is nothing to show.
 * @template T
 * @param {string} prefix
 * @param {string | (() => string)} path a function when it depends on what is shown
 * @param {(data: unknown) => { items: T[], next_cursor: string | null }} pageOf
 * @param {(item: T) => HTMLElement} rowOf
 * @param {{ filters?: () => string, sessionEnded: (error: unknown) => boolean,
 *   pageSize?: number }} options `filters`: more query parameters, each as `&name=value`;
 *   `sessionEnded`: true when the error was a 401 it has dealt with
 * @returns {(first: boolean) => Promise<void>}
 */
export function pagedTable(prefix, path, pageOf, rowOf, options) {
  const { filters = () => '', sessionEnded, pageSize = 20 } = options;
  /** @type {string | null} */
  let nextCursor = null;
  return async (first) => {
    const more = button(`${prefix}-more`);
    const cursor = !first && nextCursor ? `&cursor=${encodeURIComponent(nextCursor)}` : '';
    const base = typeof path === 'string' ? path : path();
    const url = `${base}?limit=${pageSize}${filters()}${cursor}`;
    showError(`${prefix}-error`);
    try {
      const page = pageOf(await (first ? api('GET', url) : busy(more, () => api('GET', url))));
      const body = $(`${prefix}-body`);
      const rows = page.items.map(rowOf);
      if (first) body.replaceChildren(...rows);
      else body.append(...rows);
      nextCursor = page.next_cursor;
      const any = body.children.length > 0;
      $(`${prefix}-table`).hidden = !any;
      $(`${prefix}-empty`).hidden = any;
      more.hidden = !nextCursor;
    } catch (error) {
      if (sessionEnded(error)) return;
      if (first && error instanceof ApiError && error.status === 404) {
        $(`${prefix}-table`).hidden = true;
        $(`${prefix}-empty`).hidden = false;
        more.hidden = true;
        return;
      }
      showError(`${prefix}-error`, error);
    }
  };
}
