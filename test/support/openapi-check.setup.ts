import { recordResponses, type RecordedResponse } from './http-client';
import { buildDocumentInProcess } from './openapi-document';
import { OpenApiConformance } from './openapi-conformance';

/**
 * With OPENAPI_CHECK=1, every e2e suite's HttpClient responses are checked against the OpenAPI
 * document once the suite is done (jest setupFilesAfterEnv of the e2e project).
 */
if (process.env.OPENAPI_CHECK === '1') {
  let recorded: RecordedResponse[] = [];
  beforeAll(() => {
    recorded = recordResponses();
  });
  afterAll(async () => {
    const conformance = new OpenApiConformance((await buildDocumentInProcess()) as never);
    const documented = recorded.filter((response) => {
      const path = new URL(response.url).pathname;
      return !/^\/(docs|dashboard|admin|metrics)(\/|$)/.test(path);
    });
    if (process.env.OPENAPI_CHECK_VERBOSE === '1') {
      console.log(`OpenAPI check: ${documented.length} responses`);
    }
    expect(conformance.check(documented)).toEqual([]);
  });
}
