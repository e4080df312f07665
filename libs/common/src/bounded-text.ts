const MARK = '…';

/**
 * A value as text of at most `max` characters, for log lines and stored error messages: some
 * errors carry whole payloads (ethers embeds the transaction and its calldata in its message),
 * and one such line per retry once filled disks. The cut says how much was left out.
 */
export function boundedText(value: unknown, max = 500): string {
  const text = textOf(value);
  if (text.length <= max) return text;
  const suffix = `${MARK}[+${text.length} chars]`;
  if (suffix.length >= max) return text.slice(0, max);
  let cut = max - suffix.length;
  // Never split a surrogate pair: half of one is not valid text in Postgres or JSON.
  if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return `${text.slice(0, cut)}${MARK}[+${text.length - cut} chars]`;
}

function textOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value); // e.g. an object whose toString throws
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
