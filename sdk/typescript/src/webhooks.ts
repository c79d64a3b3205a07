/**
 * Verify a webhook delivery: a pure function of the headers and the raw body bytes, usable from
 * any Node web framework (read the raw body before any JSON parsing).
 *
 *     const event = verifyWebhook(secret, req.headers, rawBody);
 *
 * Checks `X-Service-Timestamp` within `tolerance` seconds of now, then `X-Service-Signature` =
 * `sha256=<hex HMAC-SHA256(secret, raw body)>` in constant time (several secrets allowed during a
 * rotation of yours; during a roll of the endpoint's secret the gateway sends one signature per
 * secret, spaced, and any of them may match), then parses the event. An empty secret (or none)
 * is refused with a `TypeError`: anyone can sign with "". The gateway does not sign the
 * timestamp (docs/webhooks.md): de-duplicate by the event `id`, deliveries can repeat.
 */
import { MccgwError } from "./errors.js";
import { hmacHex, signaturesEqual } from "./signing.js";

export class WebhookVerificationError extends MccgwError {
  override name = "WebhookVerificationError";
}
export class InvalidWebhookSignature extends WebhookVerificationError {
  override name = "InvalidWebhookSignature";
}
export class StaleWebhook extends WebhookVerificationError {
  override name = "StaleWebhook";
}

export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
  deliveryId: string | undefined;
  body: Record<string, unknown>;
}

/** Headers as Node (`IncomingMessage.headers`), fetch (`Headers`) or a list of pairs give them. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<readonly [string, string]>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in Object(headers)
      ? (headers as Iterable<readonly [string, string]>)
      : Object.entries(headers as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return String(Array.isArray(value) ? value[0] : value);
  }
  return undefined;
}

/** The `X-Service-Signature` value for a raw body (for tests and receivers' tools). */
export function webhookSignature(secret: string, rawBody: string | Uint8Array): string {
  return "sha256=" + hmacHex(secret, rawBody);
}

export function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: { tolerance?: number | null; now?: number } = {},
): WebhookEvent {
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== "string" || s.length === 0)) {
    // A receiver configured without its secret would accept what anyone signs with "".
    throw new TypeError("verifyWebhook needs the endpoint's secret: an empty secret is refused");
  }
  const tolerance = options.tolerance === undefined ? 300 : options.tolerance;
  if (tolerance !== null) {
    const raw = (header(headers, "x-service-timestamp") ?? "").trim();
    if (!/^\d+$/.test(raw)) throw new StaleWebhook("X-Service-Timestamp is missing or not Unix seconds");
    const skew = Math.abs((options.now ?? Date.now() / 1000) - Number(raw));
    if (skew > tolerance) throw new StaleWebhook(`X-Service-Timestamp is ${Math.floor(skew)} s off (limit ${tolerance} s)`);
  }
  const presented = header(headers, "x-service-signature");
  if (!presented || !presented.trim().toLowerCase().startsWith("sha256=")) {
    throw new InvalidWebhookSignature("X-Service-Signature is missing or not sha256=<hex>");
  }
  // During a secret roll's overlap the header carries one signature per secret, spaced.
  const offered = presented.trim().split(/\s+/);
  if (!secrets.some((s) => offered.some((one) => signaturesEqual(hmacHex(s, rawBody), one)))) {
    throw new InvalidWebhookSignature("X-Service-Signature does not match the body");
  }
  let body: unknown;
  try {
    body = JSON.parse(typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    throw new WebhookVerificationError("the signed body is not JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new WebhookVerificationError("the signed body is not a JSON object");
  }
  const event = body as Record<string, unknown>;
  const data = event["data"];
  return {
    id: String(event["id"] ?? ""),
    type: String(event["type"] ?? header(headers, "x-service-event") ?? ""),
    created_at: String(event["created_at"] ?? ""),
    data: data !== null && typeof data === "object" ? (data as Record<string, unknown>) : {},
    deliveryId: header(headers, "x-service-delivery"),
    body: event,
  };
}
