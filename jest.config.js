// Three tiers, all run by `npm test`: unit specs beside the code, integration and e2e under test/.
const moduleNameMapper = {
  '^@app/(config|common|database|queue|chains|domain)(/.*)?$': '<rootDir>/libs/$1/src$2',
  '^@app/localnet(/.*)?$': '<rootDir>/apps/localnet/src$1',
  '^@test/support(/.*)?$': '<rootDir>/test/support$1',
  '^@asset-issuance/client$': '<rootDir>/libs/client/src',
};
const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(ts|js)$': ['@swc/jest'] },
  // ESM-only dependencies that Node 20 requires natively but Jest's CommonJS sandbox cannot.
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
};
module.exports = {
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,bench,test/chaos}/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      // A SoftHSM2 token directory for the run (the PKCS#11 signer's suites).
      globalSetup: '<rootDir>/test/support/softhsm.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/softhsm.global-teardown.ts',
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/softhsm.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/softhsm.global-teardown.ts',
      // OPENAPI_CHECK=1: each suite's responses are checked against the OpenAPI document.
      // Every suite: no secret handed out during it may stand in its services' logs.
      setupFilesAfterEnv: [
        '<rootDir>/test/support/openapi-check.setup.ts',
        '<rootDir>/test/support/log-secret-scan.setup.ts',
      ],
    },
    // Generated hostile requests against the whole service (test/fuzz): `npm run test:fuzz`.
    { ...base, displayName: 'fuzz', testMatch: ['<rootDir>/test/fuzz/**/*.test.ts'] },
  ],
};
