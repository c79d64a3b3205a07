/**
 * The project request signatures of the gateway (docs/access.md), with Node's crypto.
 *
 * HMAC form (`X-Timestamp` + `X-Signature`): the lowercase hex HMAC-SHA256, keyed with the
 * project's api secret, of `METHOD\nTARGET\nTIMESTAMP\nBODY` where TARGET is the request target
 * as sent (path plus `?query`) and BODY the canonical JSON of the body, or "" when there is none.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

import type { Credentials } from "./auth.js";
import { canonicalJson } from "./canonical.js";

export function signingMessage(
  method: string,
  target: string,
  timestamp: string | number,
  body: unknown,
): string {
  return [method.toUpperCase(), target, String(timestamp), canonicalJson(body)].join("\n");
}

export function hmacHex(secret: string, data: string | Uint8Array): string {
  return createHmac("sha256", secret).update(data).digest("hex");
}

/** The `X-Signature` header value: `sha256=<hex>`. */
export function requestSignature(
  secret: string,
  method: string,
  target: string,
  timestamp: string | number,
  body: unknown,
): string {
  return "sha256=" + hmacHex(secret, signingMessage(method, target, timestamp, body));
}

/** The `X-Project-Signature` value (hex HMAC of the raw body bytes). */
export function bodySignature(secret: string, rawBody: string | Uint8Array): string {
  return hmacHex(secret, rawBody);
}

/** Constant-time comparison; the `sha256=` prefix is optional, hex case-insensitive. */
export function signaturesEqual(expectedHex: string, presented: string): boolean {
  let value = presented.trim();
  if (value.slice(0, 7).toLowerCase() === "sha256=") value = value.slice(7);
  const a = Buffer.from(expectedHex.toLowerCase());
  const b = Buffer.from(value.toLowerCase());
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `X-Project-ID` + `X-Timestamp` + `X-Signature` (the secret never travels). Each attempt is
 * signed afresh, with a timestamp strictly later than the last one of the same message: the
 * gateway accepts a write's signature once.
 */
export class HmacAuth implements Credentials {
  readonly signsOnce = true;
  readonly #secret: string;
  readonly #last = new Map<string, number>();
  constructor(
    readonly projectId: string | number,
    apiSecret: string,
    readonly clock: () => number = () => Date.now() / 1000,
  ) {
    this.#secret = apiSecret;
  }

  headers(method: string, target: string, body: unknown): Record<string, string> {
    const key = [method.toUpperCase(), target, canonicalJson(body)].join("\n");
    const now = Math.floor(this.clock());
    const last = this.#last.get(key);
    const ts = last === undefined || now > last ? now : last + 1;
    this.#last.delete(key);
    this.#last.set(key, ts);
    if (this.#last.size > 4096) this.#last.delete(this.#last.keys().next().value as string);
    return {
      "X-Project-ID": String(this.projectId),
      "X-Timestamp": String(ts),
      "X-Signature": requestSignature(this.#secret, method, target, ts, body),
    };
  }
}
