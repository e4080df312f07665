/** What every API key starts with: a key is told apart from other text, in logs too, by it. */
export const API_KEY_PREFIX = 'ais_';
