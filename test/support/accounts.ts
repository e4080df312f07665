import { HttpClient } from './http-client';

export const TEST_PASSWORD = 'correct horse battery staple';

/** An email no other test or run uses. */
export function uniqueEmail(label: string): string {
  return `${label}-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
}

/** Registers a new account; the client returned carries its session cookie. */
export async function registerSession(
  baseUrl: string,
  label: string,
): Promise<{ session: HttpClient; email: string }> {
  const session = new HttpClient(baseUrl);
  const email = uniqueEmail(label);
  const registered = await session.post('/account/register', { email, password: TEST_PASSWORD });
  if (registered.status !== 200) throw new Error(`register: ${JSON.stringify(registered.body)}`);
  return { session, email };
}
