// The signing policies section: the account's rules as JSON, edited and saved through the
// session (an API key cannot change them). The service names every problem of a bad policy.
/* global HTMLTextAreaElement */

import { announce, api, busy, button, byId, showError } from './dashboard-kit.js';

/** @type {(error: unknown) => boolean} */
let sessionEnded = () => false;

const editor = () => byId('policy-json', HTMLTextAreaElement);

/** @param {unknown} policy */
function show(policy) {
  editor().value = JSON.stringify(policy, null, 2);
}

export async function loadPolicies() {
  try {
    show(await api('GET', '/account/policies'));
  } catch (error) {
    if (!sessionEnded(error)) showError('policy-error', error);
  }
}

/** @param {SubmitEvent} event */
async function save(event) {
  event.preventDefault();
  showError('policy-error');
  /** @type {unknown} */
  let parsed = null;
  try {
    parsed = JSON.parse(editor().value || '{}');
  } catch {
    showError('policy-error', new Error('The policy is not valid JSON.'));
    editor().focus();
    return;
  }
  // Whatever it is, the service says what is wrong with it.
  const body = /** @type {object} */ (parsed);
  try {
    show(await busy(button('save-policy'), () => api('PUT', '/account/policies', body)));
    announce('Signing policies saved.');
  } catch (error) {
    if (!sessionEnded(error)) showError('policy-error', error);
  }
}

/** Forgets the account's policy (on sign-out). */
export function clearPolicies() {
  editor().value = '';
}

/** @param {{ sessionEnded: (error: unknown) => boolean }} hooks */
export function setUpPolicies(hooks) {
  sessionEnded = hooks.sessionEnded;
  byId('policy-form', HTMLFormElement).addEventListener('submit', (event) => void save(event));
}
