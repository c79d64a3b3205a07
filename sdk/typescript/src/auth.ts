/** Credentials that need no secret arithmetic (usable in a browser). */

/** Turns one attempt of a request into headers. */
export interface Credentials {
  headers(method: string, target: string, body: unknown): Record<string, string>;
  /** The gateway takes each of these signatures once (HMAC): a same-second replay is re-signed. */
  readonly signsOnce?: boolean;
}

/** `X-Project-ID` + `X-API-Key: <api_secret>` (the secret travels: HTTPS only, servers only). */
export class ApiKeyAuth implements Credentials {
  readonly #secret: string;
  constructor(
    readonly projectId: string | number,
    apiSecret: string,
  ) {
    this.#secret = apiSecret;
  }
  headers(): Record<string, string> {
    return { "X-Project-ID": String(this.projectId), "X-API-Key": this.#secret };
  }
}

/** `Authorization: Bearer <access token>` for a user's calls (OAuth 2.0). */
export class BearerAuth implements Credentials {
  readonly #token: string;
  constructor(token: string) {
    this.#token = token;
  }
  headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.#token}` };
  }
}
