/**
 * An operation's error in one line, as the console shows it: its name, then its message, unless
 * the message begins with the name already ("Insufficient funds: 0x... holds ...").
 */
export function errorLine(error: { error: string; message?: string | null }): string {
  const { error: name, message } = error;
  if (!message) return name;
  return message.toLowerCase().startsWith(name.toLowerCase()) ? message : `${name}: ${message}`;
}
