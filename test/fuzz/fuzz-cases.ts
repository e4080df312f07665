import { Rng } from './fuzz-random';
import {
  hostileObject,
  hostileValue,
  PROTOTYPE_NAMES,
  labelledHostileValue,
  longString,
  nested,
  NUMBER_TOKENS,
  RawJson,
  toJson,
  TRICKY_STRINGS,
  UNICODE_SAMPLES,
  type FuzzValue,
} from './fuzz-values';
import {
  otherFamily,
  pickFamily,
  ROUTES,
  type FamilyTargets,
  type FuzzTargets,
  type RouteSpec,
} from './fuzz-routes';
import type { FuzzRequest } from './fuzz-transport';

/** One generated request and what it is meant to probe. */
export interface FuzzCase {
  index: number;
  /** `METHOD /template` of the route aimed at, or `unknown path`. */
  route: string;
  /** The attack family and variant, e.g. `unicode.nul`, `path.bad-escape`. */
  category: string;
  /** The route documents a non-envelope 2xx (a hosted document, a page, metrics). */
  bareSuccess: boolean;
  /**
   * What the contract must refuse in this request (never a 2xx): a POST whose body is not JSON,
   * a null where a field takes a value, a field named after a prototype member.
   */
  mustRefuse?: string;
  /** A raw connection probe, for which the server closing it without an answer is fine. */
  closeIsAnswer?: boolean;
  request: FuzzRequest;
}

/** A request being built: everything an attack may change before it is written out. */
interface Draft {
  method: string;
  template: string;
  params: Record<string, string>;
  /** `name=value` pieces as they go on the wire. */
  query: string[];
  body?: FuzzValue;
  /** Bytes sent instead of `body` (encodings, invalid JSON). */
  rawBody?: Buffer;
  /** null: no Content-Type at all. */
  contentType: string | null;
  auth: [string, string][];
  headers: [string, string][];
  path?: string;
}

interface Context {
  rng: Rng;
  targets: FuzzTargets;
  family: FamilyTargets;
  route: RouteSpec;
}

type Attack = (draft: Draft, context: Context) => string;

export const ONE_MIB = 1024 * 1024;
const SOLANA_LOST = [
  '11111111111111111111111111111111',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'SysvarRent111111111111111111111111111111111',
  'SysvarC1ock11111111111111111111111111111111',
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
];
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX = '0123456789abcdef';

/** Path parameter values: wrong families, edge cases of both formats, escapes, lengths. */
function hostileParam(rng: Rng, context: Context): [string, string] {
  const { family, targets } = context;
  const wrong = otherFamily(targets, family);
  return rng.pick<[string, string]>([
    ['wrong-family', wrong.token],
    ['wrong-family-wallet', wrong.wallet],
    ['evm-zero', '0x' + '0'.repeat(40)],
    ['evm-lowercase', targets.evm.token.toLowerCase()],
    ['evm-uppercase', '0x' + targets.evm.token.slice(2).toUpperCase()],
    [
      'evm-bad-checksum',
      '0x' + targets.evm.token.slice(2, 41) + (targets.evm.token.endsWith('a') ? 'B' : 'a'),
    ],
    ['evm-short', '0x' + rng.string(HEX, 39)],
    ['evm-long', '0x' + rng.string(HEX, 41)],
    ['evm-no-prefix', rng.string(HEX, 40)],
    ['evm-nonhex', '0x' + 'g'.repeat(40)],
    ['solana-lost', rng.pick(SOLANA_LOST)],
    ['base58-bad-chars', '0OIl' + rng.string(BASE58, 40)],
    ['base58-short', rng.string(BASE58, 31)],
    ['base58-long', rng.string(BASE58, 45)],
    ['base58-huge', rng.string(BASE58, 88)],
    ['uuid', randomUuid(rng)],
    ['uuid-upper', randomUuid(rng).toUpperCase()],
    ['numeric', rng.pick(['0', '-1', '1e3', '99999999999999999999999', '0x0'])],
    ['long-101', 'a'.repeat(101)],
    ['long-2000', rng.string(BASE58, 2000)],
    ['long-9000', 'z'.repeat(9000)],
    ['bad-escape', rng.pick(['%zz', '%', '%4', 'a%zzb', '%%'])],
    ['encoded-slash', `${family.token.slice(0, 10)}%2F${family.token.slice(10)}`],
    ['encoded-dotdot', rng.pick(['%2e%2e', '%2E%2E%2F%2E%2E', '..%2f..%2fhealth'])],
    ['dotdot', rng.pick(['..', '.', '...'])],
    ['nul-escape', rng.pick(['%00', 'abc%00def'])],
    ['surrogate-escape', '%ED%A0%80'],
    ['invalid-utf8', rng.pick(['%FF%FE', '%C0%80', '%E2%82'])],
    ['raw-latin1', 'abc\u00ff\u00e9'],
    ['encoded-unicode', encodeURIComponent('🦀\u202e\u0301')],
    ['encoded-space', '%20' + family.token + '%20'],
    ['plus-semicolon', rng.pick(['a+b', 'a;b=c', 'a,b', "a'b", 'a"b'])],
    ['double-encoded', '%252F%252e%252e'],
    ['query-in-param', `${family.token}%3Fnetwork%3Dsolana`],
  ]);
}

/**
 * encodeURIComponent, except that a lone surrogate is written as its (invalid) UTF-8 bytes
 * instead of throwing: the server must cope with what a URL can carry.
 */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out +=
      char.length === 1 && code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((byte) => `%${byte.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(char);
  }
  return out;
}

function randomUuid(rng: Rng): string {
  const hex = rng.string(HEX, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Fields that take an address, an amount or a network, by name. */
const ADDRESS_FIELDS = ['recipient'];
const AMOUNT_FIELDS = [
  'amount',
  'decimals',
  'seller_fee',
  'max_supply',
  'maxSupply',
  'token_id',
  'tokenId',
];

function bodyFields(draft: Draft): string[] {
  return draft.body &&
    typeof draft.body === 'object' &&
    !Array.isArray(draft.body) &&
    !(draft.body instanceof RawJson)
    ? Object.keys(draft.body)
    : [];
}

function setField(draft: Draft, field: string, value: FuzzValue): void {
  draft.body = { ...(draft.body as Record<string, FuzzValue>), [field]: value };
}

/** A field to attack: one of the body's, or a known one the body does not carry yet. */
function pickField(rng: Rng, draft: Draft, candidates: string[] = []): string {
  const fields = bodyFields(draft);
  const present = candidates.filter((field) => fields.includes(field));
  if (present.length) return rng.pick(present);
  if (candidates.length && rng.chance(0.5)) return rng.pick(candidates);
  return fields.length ? rng.pick(fields) : rng.pick(['name', 'amount', 'network', 'recipient']);
}

const attackFieldType: Attack = (draft, { rng }) => {
  const [kind, value] = labelledHostileValue(rng);
  setField(draft, pickField(rng, draft), value);
  return `field.${kind}`;
};

const attackUnicode: Attack = (draft, { rng }) => {
  const [name, sample] = rng.pick(UNICODE_SAMPLES);
  const fields = bodyFields(draft).filter(
    (field) => typeof (draft.body as Record<string, FuzzValue>)[field] === 'string',
  );
  const field = fields.length ? rng.pick(fields) : pickField(rng, draft);
  const where = rng.pick(['replace', 'append', 'key', 'nested'] as const);
  if (where === 'key') {
    setField(draft, sample, 'x');
  } else if (where === 'nested' && draft.template.startsWith('/nfts')) {
    setField(draft, 'attributes', [{ trait_type: sample, value: sample }]);
  } else {
    const current = (draft.body as Record<string, FuzzValue> | undefined)?.[field];
    setField(
      draft,
      field,
      where === 'append' && typeof current === 'string' ? current + sample : sample,
    );
  }
  return `unicode.${name}`;
};

const attackShape: Attack = (draft, { rng }) => {
  const variant = rng.weighted<string>([
    ['array', 2],
    ['null', 1],
    ['scalar', 2],
    ['empty', 1],
    ['missing-field', 2],
    ['unknown-field', 2],
    ['proto', 2],
    ['deep', 4],
    ['deep-field', 3],
    ['duplicate-key', 1],
    ['object-for-string', 2],
  ]);
  const fields = bodyFields(draft);
  switch (variant) {
    case 'array':
      draft.body = [draft.body ?? null];
      break;
    case 'null':
      draft.body = null;
      break;
    case 'scalar':
      draft.body = rng.pick<FuzzValue>(['text', new RawJson('42'), true, new RawJson('1e400')]);
      break;
    case 'empty':
      draft.body = {};
      break;
    case 'missing-field':
      if (fields.length) {
        const { [rng.pick(fields)]: _dropped, ...rest } = draft.body as Record<string, FuzzValue>;
        draft.body = rest;
      }
      break;
    case 'unknown-field':
      setField(
        draft,
        rng.pick(['max_suply', 'admin', 'account_id', 'owner', 'wallet_id', '']),
        hostileValue(rng),
      );
      break;
    case 'proto':
      draft.rawBody = Buffer.from(
        toJson(draft.body ?? {}).replace(
          /^\{/,
          rng.pick(['{"__proto__":{"admin":true},', '{"constructor":{"prototype":{"x":1}},']),
        ),
      );
      break;
    case 'deep':
      draft.body = nested(
        rng.pick(['array', 'object'] as const),
        rng.pick([33, 64, 500, 1_300, 5_000, 50_000]),
      );
      break;
    case 'deep-field':
      setField(
        draft,
        pickField(rng, draft),
        nested(rng.pick(['array', 'object'] as const), rng.pick([33, 100, 1_300, 10_000])),
      );
      break;
    case 'duplicate-key':
      draft.rawBody = Buffer.from(
        toJson(draft.body ?? {}).replace(/^\{/, '{"amount":"1","amount":{"x":[]},'),
      );
      break;
    default:
      setField(draft, pickField(rng, draft), hostileObject(rng));
  }
  return `shape.${variant}`;
};

/** A field of the route set to null: no field of the API takes null, optional ones included. */
const attackNullField: Attack = (draft, { rng }) => {
  const field = pickField(rng, draft);
  setField(draft, field, null);
  return `null-field.${field}`;
};

/** A field named after a member every object inherits, beside the valid ones. */
const attackPrototypeName: Attack = (draft, { rng }) => {
  const name = rng.pick(PROTOTYPE_NAMES);
  setField(draft, name, rng.chance(0.5) ? 'x' : hostileValue(rng));
  return `prototype-name.${name}`;
};

/** CONNECT, which Node hands to the server's 'connect' listeners rather than to the router. */
const attackConnect: Attack = (draft, { rng }) => {
  draft.method = 'CONNECT';
  draft.path = rng.pick([
    '127.0.0.1:6379',
    'localhost:5432',
    '169.254.169.254:80',
    'example.com:443',
  ]);
  return 'method.CONNECT';
};

/** The refusal a category's requests must get, by the category's family. */
const MUST_REFUSE: Readonly<Record<string, string>> = {
  'null-field': 'a null field',
  'prototype-name': 'a field named after a prototype member',
};

const attackAmount: Attack = (draft, { rng }) => {
  const field = pickField(rng, draft, AMOUNT_FIELDS);
  const variant = rng.weighted<string>([
    ['number', 5],
    ['string', 4],
    ['huge', 2],
  ]);
  if (variant === 'number') setField(draft, field, new RawJson(rng.pick(NUMBER_TOKENS)));
  else if (variant === 'string') setField(draft, field, rng.pick(TRICKY_STRINGS.slice(0, 30)));
  else
    setField(
      draft,
      field,
      rng.chance(0.5) ? '9'.repeat(rng.int(20, 5000)) : new RawJson('9'.repeat(rng.int(20, 5000))),
    );
  return `amount.${variant}`;
};

const attackAddress: Attack = (draft, context) => {
  const { rng, targets, family } = context;
  if (draft.template.includes(':') && rng.chance(0.4)) return attackPath(draft, context);
  const [name, value] = rng.chance(0.3)
    ? hostileParam(rng, context)
    : rng.pick<[string, string]>([
        ['wrong-family', otherFamily(targets, family).wallet],
        ['lost-solana', rng.pick(SOLANA_LOST)],
        ['own-mint', family.token],
        ['own-collection', family.collection],
        ['evm-zero', '0x' + '0'.repeat(40)],
        [
          'evm-bad-checksum',
          targets.evm.stranger.slice(0, 41) + (targets.evm.stranger.endsWith('a') ? 'B' : 'a'),
        ],
      ]);
  setField(draft, pickField(rng, draft, ADDRESS_FIELDS), value);
  return `address.${name}`;
};

const attackNetwork: Attack = (draft, { rng, targets, family }) => {
  const value = rng.pick<FuzzValue>([
    otherFamily(targets, family).network,
    'Solana',
    'SOLANA',
    ' base',
    'base ',
    'evm',
    'ethereum',
    'sepolia',
    'solana-devnet',
    'bitcoin',
    'base\u0000',
    '',
    null,
    ['solana'],
    { network: 'solana' },
    new RawJson('1'),
  ]);
  setField(draft, 'network', value);
  return 'network.odd';
};

const attackSize: Attack = (draft, { rng }) => {
  const variant = rng.weighted<string>([
    ['long-field', 4],
    ['large-array', 2],
    ['near-limit', 1],
    ['over-limit', 1],
  ]);
  if (variant === 'long-field') {
    setField(draft, pickField(rng, draft), longString(rng, rng.pick([65, 2_001, 50_000, 300_000])));
  } else if (variant === 'large-array') {
    const item = rng.pick<FuzzValue>([
      'https://example.com/a.png',
      { trait_type: 'a', value: 'b' },
      1,
    ]);
    setField(
      draft,
      rng.pick(['images', 'attributes', pickField(rng, draft)]),
      Array.from({ length: rng.pick([100, 10_000, 30_000]) }, () => item),
    );
  } else {
    // A body of about the limit: one padding field carries the size.
    const target =
      variant === 'near-limit' ? ONE_MIB - rng.int(64, 2_048) : ONE_MIB + rng.int(1, 4_096);
    const base = toJson(draft.body ?? {});
    setField(draft, 'description', 'x'.repeat(Math.max(0, target - base.length - 20)));
  }
  return `size.${variant}`;
};

const FORM_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
];
const OTHER_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=iso-8859-1',
  'application/json; charset=utf-8; charset=utf-16',
  'APPLICATION/JSON',
  'Application/Json; Charset=UTF-8',
  'application/json;',
  'application/jsonx',
  'application/vnd.api+json',
  'application/json, text/plain',
  'application/octet-stream',
  'application/xml',
  'text/html',
  'multipart/form-data; boundary=fuzz',
  '*/*',
  '',
  ';',
  'application/json; boundary=' + 'a'.repeat(2000),
];

const attackEncoding: Attack = (draft, { rng }) => {
  const json = toJson(draft.body ?? {});
  const variant = rng.weighted<string>([
    ['form', 3],
    ['content-type', 5],
    ['no-content-type', 2],
    ['utf16', 1],
    ['invalid-json', 4],
    ['truncated-json', 3],
    ['empty-body', 2],
    ['invalid-utf8', 2],
    ['bom', 1],
    ['multipart', 1],
  ]);
  switch (variant) {
    case 'form':
      draft.contentType = rng.pick(FORM_TYPES);
      draft.rawBody = Buffer.from(
        new URLSearchParams(
          Object.entries((draft.body as Record<string, FuzzValue>) ?? {}).map(
            ([key, value]): [string, string] => [
              key,
              typeof value === 'string' ? value : toJson(value),
            ],
          ),
        ).toString() + rng.pick(['', '&a[b]=1', '&%zz=1', '&x=%E0%A4%A']),
      );
      break;
    case 'content-type':
      draft.contentType = rng.pick(OTHER_TYPES);
      draft.rawBody = Buffer.from(json);
      break;
    case 'no-content-type':
      draft.contentType = null;
      draft.rawBody = Buffer.from(json);
      break;
    case 'utf16':
      draft.contentType = 'application/json; charset=utf-16';
      draft.rawBody = Buffer.from('\ufeff' + json, 'utf16le');
      break;
    case 'invalid-json':
      draft.rawBody = Buffer.from(
        rng.pick([
          json.replace(/\}$/, ',}'),
          json.replace(/"/g, "'"),
          '{"amount": NaN}',
          '{"amount": Infinity}',
          '{amount: 1}',
          '{"a":1} {"b":2}',
          '{"a":1 /* c */}',
          '{"a":"\u0001raw control"}',
          '{"a":"\\x41"}',
          '{"a":"\\ud800"}',
          '{"a":01}',
          'undefined',
          '{"a":1}garbage',
          '['.repeat(100),
          '"\\u00',
        ]),
      );
      break;
    case 'truncated-json':
      draft.rawBody = Buffer.from(json.slice(0, rng.int(0, Math.max(0, json.length - 1))));
      break;
    case 'empty-body':
      draft.rawBody = Buffer.from(rng.pick(['', ' ', '\n\r\t', '\u0000']));
      break;
    case 'invalid-utf8':
      draft.rawBody = Buffer.concat([
        Buffer.from(json.slice(0, -2)),
        Buffer.from(
          rng.pick([
            [0xff],
            [0xc0, 0x80],
            [0xed, 0xa0, 0x80],
            [0xe2, 0x82],
            [0xf8, 0x88, 0x80, 0x80, 0x80],
          ]),
        ),
        Buffer.from(json.slice(-2)),
      ]);
      break;
    case 'bom':
      draft.rawBody = Buffer.from('\ufeff' + json);
      break;
    default:
      draft.contentType = 'multipart/form-data; boundary=fuzz';
      draft.rawBody = Buffer.from(
        `--fuzz\r\nContent-Disposition: form-data; name="body"\r\n\r\n${json}\r\n--fuzz--\r\n`,
      );
  }
  return `encoding.${variant}`;
};

const attackPath: Attack = (draft, context) => {
  const names = Object.keys(draft.params);
  if (!names.length) return attackUnknownPath(draft, context);
  const [name, value] = hostileParam(context.rng, context);
  draft.params[context.rng.pick(names)] = value;
  return `path.${name}`;
};

const attackQuery: Attack = (draft, { rng }) => {
  const [name, piece] = rng.pick<[string, string]>([
    ['network', `network=${percentEncode(rng.pick(TRICKY_STRINGS))}`],
    ['network-unicode', `network=${percentEncode(rng.pick(UNICODE_SAMPLES)[1])}`],
    ['duplicate', 'network=solana&network=base'],
    ['brackets', rng.pick(['network[]=solana', 'network[a]=b', 'token_id[]=1'])],
    [
      'token-id',
      `token_id=${rng.pick(['-1', '1e3', '0x1', '1.5', '', '9'.repeat(100), '%00', '%zz'])}`,
    ],
    [
      'limit',
      `limit=${rng.pick(['0', '-1', '1e400', '99999999999999999999', 'abc', '1.5', '', '%00'])}`,
    ],
    [
      'cursor',
      `cursor=${rng.pick(['x', '%zz', 'eyJ0IjoxfQ', '%00', 'a'.repeat(5000), encodeURIComponent('{"id":"\'--"}'), 'MjAyNC0wMS0wMQ'])}`,
    ],
    ['bad-escape', rng.pick(['%zz=1', 'a=%zz', '%=%', 'a=%E0%A4%A'])],
    ['long', `x=${'q'.repeat(rng.pick([1_000, 9_000]))}`],
    ['empty', rng.pick(['', '&', '&&&=', '='])],
    ['unknown', 'admin=true&__proto__[x]=1'],
  ]);
  draft.query.push(piece);
  return `query.${name}`;
};

const attackHeaders: Attack = (draft, { rng, targets }) => {
  const variant = rng.weighted<string>([
    ['idempotency-key', 5],
    ['prefer', 3],
    ['request-id', 3],
    ['auth', 4],
    ['huge', 1],
    ['many', 1],
    ['framing', 1],
    ['misc', 2],
  ]);
  const add = (name: string, value: string): void => {
    draft.headers.push([name, value]);
  };
  switch (variant) {
    case 'idempotency-key':
      for (const value of rng.pick([
        [''],
        [' '],
        ['k'.repeat(255)],
        ['k'.repeat(256)],
        ['k'.repeat(5000)],
        ['\u00ff\u00fe\u00e9'],
        ['null'],
        ['a b\tc'],
        ['fuzz-dup-1', 'fuzz-dup-2'],
        ['fuzz-shared', 'fuzz-shared'],
        [`fuzz-pool-${rng.int(1, 10)}`],
        [randomUuid(rng)],
      ])) {
        add('idempotency-key', value);
      }
      break;
    case 'prefer':
      add(
        'prefer',
        rng.pick([
          'respond-async',
          'RESPOND-ASYNC',
          'respond-async, wait=0',
          'wait=-1',
          'wait=99999999999999',
          'return=minimal',
          'respond-async;;;',
          '',
          'x'.repeat(8000),
          'respond-sync',
        ]),
      );
      if (rng.chance(0.3)) add('prefer', 'respond-async');
      break;
    case 'request-id':
      for (const value of rng.pick([
        ['../../etc'],
        ['x'.repeat(10_000)],
        ['\u00ff\u00fe'],
        ['a', 'b'],
        [''],
        ['{"$ne":1}'],
        ['${jndi:x}'],
        [randomUuid(rng)],
      ])) {
        add('x-request-id', value);
      }
      break;
    case 'auth':
      draft.auth = rng.pick<[string, string][]>([
        [],
        [['api-key', 'ais_' + rng.string(BASE58, 43)]],
        [['api-key', '']],
        [['api-key', 'x'.repeat(10_000)]],
        [['api-key', '\u00ff\u00fe']],
        [
          ['api-key', targets.apiKey],
          ['api-key', 'ais_wrong'],
        ],
        [['api-key', targets.apiKey + ' ']],
        [['cookie', 'ais_session=garbage']],
        [['cookie', 'ais_session=%zz']],
        [['cookie', `${targets.session}; ${targets.session}`]],
        [['cookie', 'ais_session=' + 'A'.repeat(8000)]],
        [['cookie', ';;;=;a']],
        [['authorization', 'Basic !!!']],
        [['authorization', 'Basic ' + Buffer.from('a'.repeat(10_000)).toString('base64')]],
        [['authorization', 'Basic']],
        [['authorization', 'Bearer ' + targets.apiKey]],
        [['authorization', 'Basic ' + Buffer.from(':').toString('base64')]],
        [['auth-key', 'x'], ...draft.auth],
      ]);
      break;
    case 'huge':
      add('x-fuzz', 'h'.repeat(rng.pick([15_000, 17_000, 40_000])));
      break;
    case 'many':
      for (let i = rng.pick([100, 300]); i > 0; i--) add(`x-fuzz-${i}`, 'v'.repeat(60));
      break;
    case 'framing':
      draft.rawBody = draft.rawBody ?? Buffer.from(toJson(draft.body ?? {}));
      for (const [name, value] of rng.pick<[string, string][]>([
        [['content-length', '-1']],
        [['content-length', 'abc']],
        [
          ['content-length', String(draft.rawBody.length)],
          ['content-length', String(draft.rawBody.length + 1)],
        ],
        [
          ['transfer-encoding', 'chunked'],
          ['content-length', String(draft.rawBody.length)],
        ],
        [['content-encoding', 'gzip']],
        [['content-encoding', 'br, deflate']],
        [['expect', '100-continue']],
        [['expect', 'fuzz']],
      ])) {
        add(name, value);
      }
      break;
    default:
      add(
        ...rng.pick<[string, string]>([
          ['accept', 'application/xml'],
          ['accept', 'text/html;q=0, */*;q=0'],
          ['accept-encoding', 'gzip;q=1000, x'],
          ['host', 'evil.example'],
          ['x-forwarded-for', 'garbage, ::ffff:1.2.3.4, 999.999.1.1'],
          ['x-forwarded-host', 'evil.example'],
          ['x-forwarded-proto', 'gopher'],
          ['origin', 'http://evil.example'],
          ['if-none-match', '*'],
          ['range', 'bytes=0-1,5-'],
          ['connection', 'close'],
          ['x-http-method-override', 'DELETE'],
        ]),
      );
  }
  return `headers.${variant}`;
};

const OTHER_METHODS = [
  'PUT',
  'PATCH',
  'OPTIONS',
  'HEAD',
  'FOO',
  'TRACE',
  'PROPFIND',
  'M-SEARCH',
  'SEARCH',
  'GET',
  'POST',
  'DELETE',
];

const attackMethod: Attack = (draft, { rng, targets }) => {
  // The fuzz's own webhook is not deleted: every later case on it would be a 404, which hides
  // what lies behind the lookup (a null url reached the URL policy only past it).
  const own = draft.params.id === targets.webhookId;
  draft.method = rng.pick(own ? OTHER_METHODS.filter((m) => m !== 'DELETE') : OTHER_METHODS);
  return `method.${draft.method}`;
};

const UNKNOWN_PATHS = [
  '/',
  '//',
  '/tokens',
  '/tokens/',
  '/TOKENS',
  '/Health',
  '/health/',
  '/health//',
  '/health/..',
  '/./health',
  '/health;x=1',
  '/health%00',
  '/health%2F',
  '/%2e%2e/health',
  '/a/../health',
  '/health\u00ff',
  '/health?%zz',
  '/health#fragment',
  'http://evil.example/health',
  '/metadata',
  '/metadata/',
  '/account/api-keys/',
  '/dashboard/../../package.json',
  '/dashboard/%2e%2e%2fpackage.json',
  '/dashboard/..%5c..%5cpackage.json',
  '/docs/../health',
  '/docs/%zz',
  '/admin/queues/../../health',
  '/admin/queues/%zz',
  '/admin/queues/api/queues/%zz',
  '/favicon.ico',
  '/.env',
  '/.git/config',
  '/tokens/%zz/mint',
  '/nfts/x/mint/extra',
  '/wallets//',
  '/operations/',
];

const attackUnknownPath: Attack = (draft, { rng }) => {
  const variant = rng.weighted<string>([
    ['listed', 6],
    ['long', 1],
  ]);
  draft.path =
    variant === 'long' ? '/' + 'x'.repeat(rng.pick([100, 5_000, 17_000])) : rng.pick(UNKNOWN_PATHS);
  if (draft.path.startsWith('http') || draft.path === '*')
    draft.method = rng.pick(['GET', 'OPTIONS']);
  return `unknown-path.${variant}`;
};

const attackValid: Attack = () => 'valid';

const ATTACKS: readonly (readonly [Attack, number, boolean])[] = [
  // [attack, weight, needs a body]
  [attackFieldType, 18, true],
  [attackUnicode, 12, true],
  [attackShape, 12, true],
  [attackNullField, 4, true],
  [attackPrototypeName, 3, true],
  [attackAmount, 6, true],
  [attackAddress, 6, true],
  [attackNetwork, 3, true],
  [attackSize, 3, true],
  [attackEncoding, 10, false],
  [attackPath, 10, false],
  [attackQuery, 6, false],
  [attackHeaders, 12, false],
  [attackMethod, 4, false],
  [attackConnect, 1, false],
  [attackUnknownPath, 3, false],
  [attackValid, 3, false],
];

function authHeaders(route: RouteSpec, targets: FuzzTargets): [string, string][] {
  switch (route.auth) {
    case 'api-key':
      return [['api-key', targets.apiKey]];
    case 'session':
      return [['cookie', targets.session]];
    case 'victim-session':
      return [['cookie', targets.victimSession]];
    case 'admin':
      return [['authorization', targets.admin]];
    default:
      return [];
  }
}

function buildCase(index: number, rng: Rng, targets: FuzzTargets): FuzzCase {
  const route = rng.weighted(ROUTES.map((spec) => [spec, spec.weight ?? 1] as const));
  const family = pickFamily(targets, rng);
  const shape = route.valid(targets, family, rng);
  const draft: Draft = {
    method: route.method,
    template: route.template,
    params: { ...shape.params },
    query: Object.entries(shape.query ?? {}).flatMap(([key, value]) =>
      value === undefined ? [] : [`${key}=${encodeURIComponent(value)}`],
    ),
    body: shape.body,
    contentType: 'application/json',
    auth: authHeaders(route, targets),
    headers: [],
  };
  const isWrite = route.method === 'POST' && route.auth === 'api-key';
  if (isWrite && rng.chance(0.6)) draft.headers.push(['prefer', 'respond-async']);
  if (isWrite && rng.chance(0.25))
    draft.headers.push(['idempotency-key', `fuzz-pool-${rng.int(1, 10)}`]);
  const usable = ATTACKS.filter(([, , needsBody]) => !needsBody || shape.body !== undefined);
  const attack = rng.weighted(usable.map(([fn, weight]) => [fn, weight] as const));
  // GET and DELETE get bodies too, now and then: a body where none is expected.
  if (!shape.body && attack === attackEncoding) draft.body = hostileObject(rng);
  const category = attack(draft, { rng, targets, family, route });
  const written = writeOut(draft, route);
  const notJson =
    written.request.body !== undefined &&
    !/^application\/json(;|$)/i.test(draft.contentType ?? '') &&
    /^encoding\.(form|content-type|no-content-type|multipart)$/.test(category);
  const mustRefuse =
    draft.method === 'POST' && notJson ? 'non-JSON body' : MUST_REFUSE[category.split('.')[0]];
  return { index, ...written, category, ...(mustRefuse ? { mustRefuse } : {}) };
}

function writeOut(draft: Draft, route: RouteSpec): Omit<FuzzCase, 'index' | 'category'> {
  const known = draft.path === undefined;
  const path =
    draft.path ??
    draft.template.replace(/:([a-z_]+)/g, (_match, name: string) => draft.params[name] ?? '') +
      (draft.query.length ? `?${draft.query.join('&')}` : '');
  const body =
    draft.rawBody ?? (draft.body === undefined ? undefined : Buffer.from(toJson(draft.body)));
  const headers: [string, string][] = [...draft.auth];
  if (body && draft.contentType !== null) headers.push(['content-type', draft.contentType]);
  headers.push(...draft.headers);
  return {
    route: known ? `${route.method} ${route.template}` : 'unknown path',
    bareSuccess: known && Boolean(route.bareSuccess),
    request: { method: draft.method, path, headers, body },
  };
}

/** The whole run, fixed by the seed: the same seed gives the same requests. */
export function generateCases(seed: number, count: number, targets: FuzzTargets): FuzzCase[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, (_, index) => buildCase(index, rng, targets));
}
