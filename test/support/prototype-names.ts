/**
 * Names every object inherits: a body field so named must be an unknown field like any other,
 * not one a check finds on the prototype (issue 26).
 */
export const PROTOTYPE_NAMES: readonly string[] = [
  'toString',
  'valueOf',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
];
