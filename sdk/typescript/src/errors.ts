/**
 * Typed errors: one class per problem slug of the gateway (generated/errors.ts), all
 * `ProblemError`, chosen by the slug at the end of the RFC 7807 `type`.
 *
 *     try { await gw.funds.lock({...}) } catch (e) { if (e instanceof InsufficientFunds) ... }
 */

/** Base of every error this client raises. */
export class MccgwError extends Error {
  override name = "MccgwError";
}

/** No answer: the connection failed or timed out (after any retries that were safe). */
export class TransportError extends MccgwError {
  override name = "TransportError";
}

export interface FieldError {
  field: string;
  message: string;
  [key: string]: unknown;
}

/** A problem answer from the gateway; an unknown slug is raised as this class itself. */
export class ProblemError extends MccgwError {
  static readonly slug: string | undefined = undefined;
  override name = "ProblemError";
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly detail: string,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${slug}: ${detail}`);
  }

  get requestId(): string | undefined {
    return this.headers["x-request-id"];
  }

  /** Field errors (`validation-error`). */
  get errors(): FieldError[] {
    const found = this.body["errors"];
    return Array.isArray(found) ? (found as FieldError[]) : [];
  }

  /** Seconds to wait, from `Retry-After` or the body's `retry_after`. */
  get retryAfter(): number | undefined {
    for (const raw of [this.headers["retry-after"], this.body["retry_after"]]) {
      const n = Number(raw);
      if (raw !== undefined && raw !== null && raw !== "" && Number.isFinite(n)) return n;
    }
    return undefined;
  }
}

/** The slug of a problem body (`type` ends in it), of a legacy `{error}` body, or `http-<status>`. */
export function slugOf(body: Record<string, unknown>, status: number): string {
  const type = body["type"];
  if (typeof type === "string" && type && type !== "about:blank") {
    return type.replace(/\/+$/, "").split("/").pop() ?? type;
  }
  const legacy = body["error"];
  if (typeof legacy === "string" && legacy) return legacy;
  return `http-${status}`;
}

export type ProblemClass = new (
  status: number,
  slug: string,
  title: string,
  detail: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) => ProblemError;

const registry = new Map<string, ProblemClass>();

/** Used by generated/errors.ts: the class of each slug. */
export function registerProblem(slug: string, cls: ProblemClass): void {
  registry.set(slug, cls);
}

/** The typed error for an error answer. */
export function problemFrom(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): ProblemError {
  const data = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
  const slug = slugOf(data, status);
  const title = String(data["title"] || slug.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase()));
  const detail = String(data["detail"] || data["message"] || title);
  const lowered: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lowered[k.toLowerCase()] = v;
  const cls = registry.get(slug) ?? ProblemError;
  return new cls(status, slug, title, detail, data, lowered);
}
