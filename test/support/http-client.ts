import { handedOutSecrets } from './secret-scan';

/** A response as the OpenAPI conformance check reads it (test/support/openapi-conformance.ts). */
export interface RecordedResponse {
  method: string;
  url: string;
  status: number;
  body: unknown;
}

let recording: RecordedResponse[] | undefined;

/** From now on every HttpClient response is also kept in the list returned (one list per run). */
export function recordResponses(): RecordedResponse[] {
  recording ??= [];
  return recording;
}

/** A small fetch wrapper for tests that talk to the service over real HTTP. */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export class HttpClient {
  private cookie?: string;

  constructor(
    readonly baseUrl: string,
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  /** The session cookie (`name=value`) this client carries, if it signed in. */
  get sessionCookie(): string | undefined {
    return this.cookie;
  }

  /** A client with the same base URL and extra default headers (e.g. an api-key). */
  with(headers: Record<string, string>): HttpClient {
    return new HttpClient(this.baseUrl, { ...this.defaultHeaders, ...headers });
  }

  /** A client with the same default headers against another instance of the service. */
  at(baseUrl: string): HttpClient {
    return new HttpClient(baseUrl, this.defaultHeaders);
  }

  get<T = any>(path: string, headers: Record<string, string> = {}): Promise<HttpResponse<T>> {
    return this.request('GET', path, undefined, headers);
  }

  post<T = any>(
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResponse<T>> {
    return this.request('POST', path, body, headers);
  }

  put<T = any>(
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResponse<T>> {
    return this.request('PUT', path, body, headers);
  }

  delete<T = any>(path: string, headers: Record<string, string> = {}): Promise<HttpResponse<T>> {
    return this.request('DELETE', path, undefined, headers);
  }

  /** Sends a raw body as is (for malformed JSON and size-limit tests). */
  async raw(
    method: string,
    path: string,
    body: string,
    contentType: string,
  ): Promise<HttpResponse> {
    const response = await fetch(this.baseUrl + path, {
      method,
      body,
      headers: { ...this.defaultHeaders, 'content-type': contentType },
    });
    const parsed = await parse(response);
    recording?.push({ method, url: response.url, status: response.status, body: parsed });
    handedOutSecrets.collect(parsed, response.headers);
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async request<T>(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<HttpResponse<T>> {
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: {
        ...this.defaultHeaders,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0];
    const parsed = await parse(response);
    recording?.push({ method, url: response.url, status: response.status, body: parsed });
    handedOutSecrets.collect(parsed, response.headers);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
}

async function parse(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
