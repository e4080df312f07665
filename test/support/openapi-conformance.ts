import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RecordedResponse } from './http-client';

interface ResponseObject {
  $ref?: string;
  content?: Record<string, unknown>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components?: { responses?: Record<string, ResponseObject> };
}

/**
 * Checks real responses against the OpenAPI document: each must match a documented path,
 * method and status, and its JSON body the schema of that response (the view schemas refuse
 * fields they do not name, and require those they list).
 */
export class OpenApiConformance {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly routes: { pattern: RegExp; path: string }[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi');
    this.routes = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
  }

  /** The problems found, one line each (empty when every response conforms). */
  check(responses: RecordedResponse[]): string[] {
    return responses.flatMap((response) => {
      const problem = this.problemOf(response);
      return problem ? [problem] : [];
    });
  }

  /** Which documented path and status each response exercised: `GET /nfts/{mint_address} 200`. */
  covered(responses: RecordedResponse[]): Set<string> {
    return new Set(
      responses.map((r) => `${r.method.toUpperCase()} ${this.routeOf(r.url) ?? '?'} ${r.status}`),
    );
  }

  private problemOf(response: RecordedResponse): string | undefined {
    const method = response.method.toLowerCase();
    const path = this.routeOf(response.url);
    const name = `${method.toUpperCase()} ${new URL(response.url).pathname} ${response.status}`;
    if (!path) return `${name}: no documented path`;
    const operation = this.document.paths[path][method];
    if (!operation) return `${name}: ${method} is not documented on ${path}`;
    if (!operation.responses[String(response.status)]) {
      return `${name}: status ${response.status} is not documented on ${method} ${path}`;
    }
    const validate = this.validator(path, method, response.status);
    if (!validate) return undefined; // a non-JSON response (the event stream)
    if (validate(response.body)) return undefined;
    const errors = this.ajv.errorsText(validate.errors, { separator: '; ' });
    return `${name}: ${errors} in ${JSON.stringify(response.body).slice(0, 600)}`;
  }

  private routeOf(url: string): string | undefined {
    const pathname = new URL(url).pathname.replace(/\/+$/, '') || '/';
    // A literal segment wins over a parameter (/events/stream before /events/{id}).
    const matches = this.routes.filter((route) => route.pattern.test(pathname));
    return matches.sort((a, b) => placeholders(a.path) - placeholders(b.path))[0]?.path;
  }

  private validator(path: string, method: string, status: number): ValidateFunction | undefined {
    const key = `${method} ${path} ${status}`;
    if (!this.validators.has(key)) {
      let pointer = ['paths', path, method, 'responses', String(status)];
      let response = this.document.paths[path][method].responses[String(status)];
      // A shared response (the error envelopes): `#/components/responses/<name>`.
      if (response.$ref) {
        const name = response.$ref.split('/').pop()!;
        pointer = ['components', 'responses', name];
        response = this.document.components!.responses![name];
      }
      if (!response.content?.['application/json']) return undefined;
      const escaped = [...pointer, 'content', 'application/json', 'schema']
        .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/');
      this.validators.set(key, this.ajv.compile({ $ref: `openapi#/${escaped}` }));
    }
    return this.validators.get(key);
  }
}

function placeholders(path: string): number {
  return (path.match(/\{/g) ?? []).length;
}
