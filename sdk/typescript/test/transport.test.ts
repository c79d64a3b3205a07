// The transport against a real local HTTP server (node:http): retries keep the idempotency key
// and re-sign, Retry-After is honoured, problems arrive typed by slug, pagination, and the
// browser entry imports no Node module.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  Client,
  HmacAuth,
  InsufficientFunds,
  ProblemError,
  RateLimitExceeded,
  ServiceUnavailable,
  TransportError,
} from "@mccgw/client";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Handler = (seen: Seen, n: number, res: ServerResponse) => void;

let handler: Handler = () => undefined;
const seen: Seen[] = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
    seen.push(entry);
    handler(entry, seen.length, res);
  });
});
let base = "";

before(async () => {
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": status >= 400 ? "application/problem+json" : "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function problem(slug: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: `https://mccgw.dev/problems/${slug}`, title: slug, detail: `${slug} detail`, ...extra };
}

function client(sleeps: number[]): Client {
  return new Client(base, new HmacAuth(7, "sk_test"), {
    retry: { backoff: 0.01 },
    sleep: async (s) => void sleeps.push(s),
  });
}

test("a write retried after 503 + Retry-After keeps its key and is signed afresh", async () => {
  seen.length = 0;
  const sleeps: number[] = [];
  handler = (_, n, res) =>
    n === 1 ? reply(res, 503, problem("service-unavailable"), { "retry-after": "2" }) : reply(res, 200, { data: { id: "lk_1" }, meta: {} });
  const answer = await client(sleeps).post("/v1/funds/lock", { json: { amount: "1" } });
  assert.equal(answer.attempts, 2);
  assert.deepEqual(sleeps, [2]);
  const [first, second] = seen.map((s) => JSON.parse(s.body) as { idempotency_key: string });
  assert.ok(first!.idempotency_key.startsWith("sdk-"));
  assert.equal(first!.idempotency_key, second!.idempotency_key);
  assert.equal(answer.idempotencyKey, first!.idempotency_key);
  assert.equal(seen[0]!.body, seen[1]!.body);
  assert.notEqual(seen[0]!.headers["x-signature"], seen[1]!.headers["x-signature"]);
  assert.equal(seen[0]!.headers["idempotency-key"], undefined);
});

test("a deprecated operation is warned of once, with its sunset and successor", async () => {
  const warned: string[] = [];
  const original = console.warn;
  console.warn = (message: string) => void warned.push(message);
  try {
    handler = (s, _, res) =>
      s.url.startsWith("/v1/old")
        ? reply(res, 200, { data: {}, meta: {} }, {
            deprecation: "@1796083200",
            sunset: "Wed, 01 Dec 2027 00:00:00 GMT",
            link: '</v1/new>; rel="successor-version"',
          })
        : reply(res, 200, { data: {}, meta: {} });
    const gw = client([]);
    await gw.get("/v1/old");
    await gw.get("/v1/old", { params: { again: 1 } });
    await gw.get("/v1/current");
    assert.deepEqual(warned, ["mccgw: GET /v1/old is deprecated; sunset Wed, 01 Dec 2027 00:00:00 GMT; successor /v1/new"]);
    await client([]).get("/v1/old"); // another client warns again
    assert.equal(warned.length, 2);
  } finally {
    console.warn = original;
  }
});

test("a lost connection is retried with the same key", async () => {
  seen.length = 0;
  handler = (_, n, res) => (n === 1 ? res.socket?.destroy() : reply(res, 201, { data: { id: "x" }, meta: {} }));
  const answer = await client([]).post("/v1/webhooks/register", { json: { url: "u" }, idempotencyKey: "mine-1" });
  assert.equal(answer.status, 201);
  assert.deepEqual(seen.map((s) => (JSON.parse(s.body) as { idempotency_key: string }).idempotency_key), ["mine-1", "mine-1"]);
});

test("a Retry-After past maxRetryAfter is thrown, typed, at once", async () => {
  seen.length = 0;
  handler = (_, __, res) => reply(res, 429, problem("rate-limit-exceeded"), { "retry-after": "120" });
  await assert.rejects(client([]).get("/v1/webhooks"), (e: unknown) => {
    assert.ok(e instanceof RateLimitExceeded && e instanceof ProblemError);
    assert.equal(e.retryAfter, 120);
    assert.equal(e.status, 429);
    return true;
  });
  assert.equal(seen.length, 1);
});

test("a write without a key is never retried; back-off gives up after maxAttempts", async () => {
  seen.length = 0;
  handler = (_, __, res) => reply(res, 503, problem("service-unavailable"));
  await assert.rejects(client([]).post("/v1/funds/lock", { json: {}, idempotencyKey: false }), ServiceUnavailable);
  assert.equal(seen.length, 1);
  seen.length = 0;
  const sleeps: number[] = [];
  await assert.rejects(client(sleeps).get("/v1/webhooks"), ServiceUnavailable);
  assert.equal(seen.length, 4);
  assert.equal(sleeps.length, 3);
  assert.ok(sleeps.every((s, i) => s >= 0 && s <= 0.01 * 2 ** i));
});

test("problems are typed by slug, unknown slugs are ProblemError, no answer is TransportError", async () => {
  handler = (_, __, res) => reply(res, 422, problem("insufficient-funds", { available_balance: "3" }), { "x-request-id": "req-1" });
  await assert.rejects(client([]).funds.lock({ user_uid: "u", currency: "MCC", amount: "25", reason: "bid", expires_at: "2030-01-01T00:00:00Z" }), (e: unknown) => {
    assert.ok(e instanceof InsufficientFunds);
    assert.equal(e.body["available_balance"], "3");
    assert.equal(e.requestId, "req-1");
    return true;
  });
  handler = (_, __, res) => reply(res, 418, problem("teapot"));
  await assert.rejects(client([]).get("/x"), (e: unknown) => e instanceof ProblemError && e.constructor === ProblemError && e.slug === "teapot");
  const closed = new Client("http://127.0.0.1:9", undefined, { retry: { maxAttempts: 1 } });
  await assert.rejects(closed.get("/healthz"), TransportError);
});

test("typed pages of a resource list, until meta.total", async () => {
  seen.length = 0;
  handler = (s, _, res) => {
    const url = new URL(s.url, base);
    const page = Number(url.searchParams.get("page"));
    const perPage = Number(url.searchParams.get("per_page"));
    const rows = [1, 2, 3, 4, 5].slice((page - 1) * perPage, page * perPage);
    const data = rows.map((n) => ({ type: "webhook_endpoint", id: `wh_${n}`, attributes: { url: `u${n}` } }));
    reply(res, 200, { data, meta: { total: 5, page, per_page: perPage, request_id: "r" } });
  };
  const sizes: number[] = [];
  const ids: string[] = [];
  for await (const page of client([]).webhooks.list({ perPage: 2 })) {
    sizes.push(page.data.length);
    ids.push(...page.data.map((e) => e.id));
  }
  assert.deepEqual(sizes, [2, 2, 1]);
  assert.deepEqual(ids, ["wh_1", "wh_2", "wh_3", "wh_4", "wh_5"]);
  assert.ok(seen.every((s) => String(s.headers["x-signature"]).startsWith("sha256=")));
  const items = [];
  for await (const item of client([]).paginate("/v1/webhooks", { perPage: 3 })) items.push(item);
  assert.equal(items.length, 5);
});

test("the browser entry imports no Node module", () => {
  const entry = fileURLToPath(import.meta.resolve("@mccgw/client/browser"));
  const visited = new Set<string>();
  const visit = (file: string): void => {
    if (visited.has(file)) return;
    visited.add(file);
    const source = readFileSync(file, "utf8");
    for (const [, spec] of source.matchAll(/(?:import|export)[^"']*?from\s+["']([^"']+)["']/g)) {
      assert.ok(spec!.startsWith("."), `${file} imports ${spec}`);
      visit(resolve(dirname(file), spec!));
    }
  };
  visit(entry);
  assert.ok(visited.size > 4);
});
