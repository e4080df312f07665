import type { FastifyInstance } from 'fastify';
import { AppError } from '@app/common';

/** The contract's limit: JSON nested deeper than this is 400 before it is parsed. */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A UTF-16 surrogate that is not half of a pair (`\ud800`): not Unicode, Postgres refuses it. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Longest field path a message repeats (keys are the client's and may be long). */
const MAX_PATH_LENGTH = 200;

/**
 * The only body parser of the API: `application/json`, nothing else (any other type, forms and
 * text included, is 415). Every JSON body of every route, public ones included, passes through
 * here, so two rules hold everywhere without each DTO knowing them:
 * - nesting deeper than MAX_JSON_DEPTH is refused by a scan of the text before it is parsed
 *   (a 1 MB body of nested arrays is refused after 33 characters, where parsing and validating
 *   it cost the API half a second of CPU and ended in a stack overflow);
 * - a string the database cannot store (a NUL character, a lone surrogate) is refused, naming
 *   the field, instead of failing as a 500 when Postgres sees it.
 * Fastify's own JSON parser does the parsing, with its prototype-poisoning checks.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(AppError.badRequest(`The JSON is nested deeper than ${MAX_JSON_DEPTH} levels.`));
      return;
    }
    // Fastify's parser answers through the callback, synchronously; it returns nothing.
    void parseJson(request, text, (error, value) => {
      if (error) return done(error);
      const problem = unstorableTextIn(value);
      if (problem) return done(AppError.badRequest(problem));
      done(null, value);
    });
  });
}

/**
 * Whether JSON text opens more than `limit` objects or arrays inside each other. One pass over
 * the characters, stopping at the first level too deep; brackets inside strings do not count.
 * Text that is not JSON may be miscounted: the parser refuses it anyway.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * What is wrong with the first string (value or key) of parsed JSON that Postgres cannot store,
 * with its field path (`attributes.0.value`, as the validation messages name fields), or
 * undefined. Recursion is safe: the depth was checked first.
 */
export function unstorableTextIn(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') {
    const problem = unstorable(value);
    return problem && `${describePath(path)} contains ${problem}.`;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = unstorable(key);
    if (keyProblem) return `${describePath(path)} has a field name that contains ${keyProblem}.`;
    const problem = unstorableTextIn(item, path ? `${path}.${key}` : key);
    if (problem) return problem;
  }
  return undefined;
}

function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character';
  if (LONE_SURROGATE.test(text)) return 'a lone UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

function describePath(path: string): string {
  if (!path) return 'The body';
  return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}...` : path;
}
