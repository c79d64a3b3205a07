/**
 * @mccgw/client for browsers: the clients, their resources and types, and the credentials that
 * need no secret (a page calls the public reads with no credentials, or a user's token). No
 * Node module is imported here; HMAC signing and webhook verification are for servers (index.ts).
 */
export { ApiKeyAuth, BearerAuth, type Credentials } from "./auth.js";
export { canonicalJson } from "./canonical.js";
export {
  type CallOptions,
  type ClientOptions,
  DEFAULT_RETRY,
  newIdempotencyKey,
  type Page,
  type Query,
  Response,
  retryAfterSeconds,
  type RetryPolicy,
  Transport,
} from "./client.js";
export { type FieldError, MccgwError, ProblemError, problemFrom, slugOf, TransportError } from "./errors.js";
export * from "./generated/errors.js";
export type * as models from "./generated/models.js";
export * from "./generated/resources.js";
