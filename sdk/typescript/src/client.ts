/**
 * The transport both clients share (works in Node 20 and in browsers: `fetch` only).
 *
 * One logical call (`gw.post(...)`, `gw.funds.lock(...)`) may take several attempts. It is
 * prepared once: the body, its canonical bytes and, for a write, its `idempotency_key` (generated
 * unless given) are fixed, so every retry is the same request and the gateway replays the first
 * answer instead of acting twice. Each attempt is signed afresh. Retried, with exponential
 * back-off (full jitter) or the server's `Retry-After`: a lost connection or time-out, 429, 502,
 * 503, 504 and `409 idempotency-key-in-use`; a write only when it carries its key.
 */
import type { Credentials } from "./auth.js";
import { canonicalJson } from "./canonical.js";
import { problemFrom, slugOf, TransportError } from "./errors.js";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface RetryPolicy {
  maxAttempts: number;
  /** The first back-off ceiling in seconds; doubles each retry. */
  backoff: number;
  maxBackoff: number;
  /** A longer Retry-After is raised to the caller instead. */
  maxRetryAfter: number;
  statuses: readonly number[];
  slugs: readonly string[];
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  backoff: 0.25,
  maxBackoff: 8,
  maxRetryAfter: 60,
  statuses: [429, 502, 503, 504],
  slugs: ["idempotency-key-in-use"],
};

export interface ClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Per attempt, milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Sent with every call. */
  headers?: Record<string, string>;
  /** Another fetch (a test's, or a polyfill). */
  fetch?: typeof fetch;
  /** How the client waits between attempts (tests replace it). */
  sleep?: (seconds: number) => Promise<void>;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface CallOptions {
  params?: Query;
  json?: unknown;
  /** A write's key: generated when absent; `false` sends the write without one (never retried). */
  idempotencyKey?: string | false;
  headers?: Record<string, string>;
  credentials?: Credentials;
}

/** A successful (2xx/3xx) answer. */
export class Response {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly text: string,
    readonly attempts: number,
    readonly idempotencyKey: string | undefined,
  ) {}

  get body(): unknown {
    return this.text ? JSON.parse(this.text) : undefined;
  }

  get data(): unknown {
    const body = this.body;
    return body !== null && typeof body === "object" ? (body as { data?: unknown }).data : undefined;
  }

  get meta(): Record<string, unknown> {
    const body = this.body;
    const meta = body !== null && typeof body === "object" ? (body as { meta?: unknown }).meta : undefined;
    return meta !== null && typeof meta === "object" ? (meta as Record<string, unknown>) : {};
  }

  /** True when the gateway answered with the stored answer of an earlier attempt. */
  get replayed(): boolean {
    return (this.headers.get("idempotent-replayed") ?? "").toLowerCase() === "true";
  }

  get requestId(): string | undefined {
    return this.headers.get("x-request-id") ?? undefined;
  }
}

/** One page of a list: its items and the list's `meta`. */
export interface Page<T = unknown> {
  items: T[];
  page: number;
  perPage: number;
  total: number | undefined;
  response: Response;
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date); undefined when absent or garbled. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = Number(raw);
  if (raw.trim() !== "" && Number.isFinite(seconds)) return Math.max(0, seconds);
  const when = Date.parse(raw);
  return Number.isNaN(when) ? undefined : Math.max(0, (when - Date.now()) / 1000);
}

export function newIdempotencyKey(): string {
  return "sdk-" + globalThis.crypto.randomUUID().replace(/-/g, "");
}

interface Prepared {
  method: string;
  target: string;
  body: unknown;
  content: string | undefined;
  headers: Record<string, string>;
  key: string | undefined;
  retryable: boolean;
  credentials: Credentials | undefined;
  attempt: number;
  resigned: boolean;
}

export class Transport {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;
  readonly #sleep: (seconds: number) => Promise<void>;
  /** Operations (method and path) already warned of as deprecated, once each. */
  readonly #deprecatedSeen = new Set<string>();

  constructor(
    baseUrl: string,
    readonly credentials?: Credentials,
    options: ClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#headers = { Accept: "application/json", ...options.headers };
    this.#sleep = options.sleep ?? ((s) => new Promise((resolve) => setTimeout(resolve, s * 1000)));
  }

  /** One logical call. Problems are thrown as the typed errors of `errors`. */
  async request(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const call = this.#prepare(method, path, options);
    for (;;) {
      call.attempt += 1;
      const headers = { ...call.headers };
      if (call.credentials) Object.assign(headers, call.credentials.headers(call.method, call.target, call.body));
      let answer: globalThis.Response | Error;
      let text = "";
      try {
        answer = await this.#fetch(this.baseUrl + call.target, {
          method: call.method,
          headers,
          body: call.content ?? null,
          signal: AbortSignal.timeout(this.#timeoutMs),
        });
        text = await answer.text();
      } catch (error) {
        answer = error instanceof Error ? error : new Error(String(error));
      }
      if (!(answer instanceof Error)) this.#warnIfDeprecated(call, answer.headers);
      const delay = this.#retryDelay(call, answer, text);
      if (delay === undefined) {
        if (answer instanceof Error) {
          throw new TransportError(`${call.method} ${call.target}: ${answer.message}`, { cause: answer });
        }
        if (answer.status >= 400) {
          throw problemFrom(answer.status, parse(text), Object.fromEntries(answer.headers.entries()));
        }
        return new Response(answer.status, answer.headers, text, call.attempt, call.key);
      }
      await this.#sleep(delay);
    }
  }

  /**
   * The gateway answered with `Deprecation` (RFC 9745): the operation goes at its `Sunset`
   * (RFC 8594). `console.warn` once per operation (method and path) of this client.
   */
  #warnIfDeprecated(call: Prepared, headers: Headers): void {
    if (!headers.has("deprecation")) return;
    const operation = `${call.method} ${call.target.split("?")[0]}`;
    if (this.#deprecatedSeen.has(operation)) return;
    this.#deprecatedSeen.add(operation);
    const sunset = headers.get("sunset");
    const link = headers.get("link") ?? "";
    let message = `mccgw: ${operation} is deprecated` + (sunset ? `; sunset ${sunset}` : "");
    if (link.includes("successor-version")) message += `; successor ${link.split(";")[0]!.trim().replace(/^<|>$/g, "")}`;
    console.warn(message);
  }

  get(path: string, options: Omit<CallOptions, "json"> = {}): Promise<Response> {
    return this.request("GET", path, options);
  }
  post(path: string, options: CallOptions = {}): Promise<Response> {
    return this.request("POST", path, options);
  }
  put(path: string, options: CallOptions = {}): Promise<Response> {
    return this.request("PUT", path, options);
  }
  patch(path: string, options: CallOptions = {}): Promise<Response> {
    return this.request("PATCH", path, options);
  }
  delete(path: string, options: CallOptions = {}): Promise<Response> {
    return this.request("DELETE", path, options);
  }

  /** Every page of a list (`page`/`per_page`, until `meta.total` is reached or a short page). */
  async *pages<T = unknown>(path: string, options: { params?: Query; perPage?: number; start?: number } = {}): AsyncGenerator<Page<T>> {
    const perPage = options.perPage ?? 100;
    for (let page = options.start ?? 1; ; page++) {
      const response = await this.get(path, { params: { ...options.params, page, per_page: perPage } });
      const items = Array.isArray(response.data) ? (response.data as T[]) : [];
      const total = typeof response.meta["total"] === "number" ? response.meta["total"] : undefined;
      yield { items, page, perPage, total, response };
      if (isLast(items.length, total, page, perPage)) return;
    }
  }

  /** Every item of a list, page after page. */
  async *paginate<T = unknown>(path: string, options: { params?: Query; perPage?: number } = {}): AsyncGenerator<T> {
    for await (const page of this.pages<T>(path, options)) yield* page.items;
  }

  /** A typed call of one route (the generated resources use it): the parsed JSON answer. */
  async call<T>(method: string, path: string, pathParams: Record<string, string | number>, options: CallOptions = {}): Promise<T> {
    const target = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = pathParams[name];
      if (value === undefined) throw new TypeError(`${method} ${path} needs the path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    return (await this.request(method, target, options)).body as T;
  }

  /** Every page of a typed list route, as its answer (`data` and `meta`). */
  async *callPages<T extends { data: unknown[]; meta: { total?: number } }>(
    method: string,
    path: string,
    pathParams: Record<string, string | number>,
    options: { params?: Query; perPage?: number } = {},
  ): AsyncGenerator<T> {
    const perPage = options.perPage ?? 100;
    for (let page = 1; ; page++) {
      const answer = await this.call<T>(method, path, pathParams, { params: { ...options.params, page, per_page: perPage } });
      yield answer;
      if (isLast(answer.data.length, answer.meta.total, page, perPage)) return;
    }
  }

  #prepare(method: string, path: string, options: CallOptions): Prepared {
    method = method.toUpperCase();
    let body = options.json;
    let key: string | undefined;
    if (WRITES.has(method) && options.idempotencyKey !== false) {
      body ??= {};
      if (body !== null && typeof body === "object" && !Array.isArray(body)) {
        const present = (body as { idempotency_key?: unknown }).idempotency_key;
        if (present && options.idempotencyKey && present !== options.idempotencyKey) {
          throw new TypeError("idempotencyKey differs from the body's idempotency_key");
        }
        // In the body, never as a header: there the HMAC signature covers it.
        key = String(present || options.idempotencyKey || newIdempotencyKey());
        body = { ...(body as object), idempotency_key: key };
      }
    }
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.params ?? {})) {
      if (v !== undefined && v !== null) query.append(k, String(v));
    }
    if (!path.startsWith("/")) path = "/" + path;
    const qs = query.toString();
    const target = qs ? path + (path.includes("?") ? "&" : "?") + qs : path;
    const headers = { ...this.#headers };
    let content: string | undefined;
    if (body !== undefined && body !== null) {
      content = canonicalJson(body);
      headers["Content-Type"] = "application/json";
    }
    Object.assign(headers, options.headers);
    return {
      method,
      target,
      body: body ?? undefined,
      content,
      headers,
      key,
      retryable: !WRITES.has(method) || key !== undefined,
      credentials: options.credentials ?? this.credentials,
      attempt: 0,
      resigned: false,
    };
  }

  /** Seconds to wait before the next attempt, or undefined to stop here. */
  #retryDelay(call: Prepared, answer: globalThis.Response | Error, text: string): number | undefined {
    const policy = this.retry;
    if (!call.retryable || call.attempt >= policy.maxAttempts) return undefined;
    if (answer instanceof Error) return this.#backoff(call.attempt);
    const status = answer.status;
    if (status === 401 && !call.resigned && call.credentials?.signsOnce) {
      // Another process sent this very write in the same second (same signature): the gateway
      // took that one and refuses ours as a replay. Sign once more in the next second.
      if (slugOf(asObject(parse(text)), 401) === "invalid-signature") {
        call.resigned = true;
        return 1 - ((Date.now() / 1000) % 1) + 0.01;
      }
    }
    if (!policy.statuses.includes(status)) {
      if (status !== 409 || !policy.slugs.includes(slugOf(asObject(parse(text)), status))) return undefined;
    }
    const after = retryAfterSeconds(answer.headers);
    if (after !== undefined) return after > policy.maxRetryAfter ? undefined : after;
    return this.#backoff(call.attempt);
  }

  #backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxBackoff, this.retry.backoff * 2 ** (attempt - 1));
    return Math.random() * ceiling;
  }
}

function isLast(count: number, total: number | undefined, page: number, perPage: number): boolean {
  if (count === 0) return true;
  if (total !== undefined) return page * perPage >= total;
  return count < perPage;
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}
