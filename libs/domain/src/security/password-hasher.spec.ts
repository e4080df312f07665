import { hashPassword, verifyPassword } from './password-hasher';

describe('password hashing', () => {
  it('verifies the right password only, with a salted self-describing hash', async () => {
    const [first, second] = await Promise.all([
      hashPassword('correct horse battery staple'),
      hashPassword('correct horse battery staple'),
    ]);
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct horse battery staple', first)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', first)).toBe(false);
    expect(await verifyPassword('anything', 'garbage')).toBe(false);
  });
});
