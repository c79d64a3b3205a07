// The signature test vectors of docs/access.md and docs/webhooks.md, parsed from the pages (so
// the pages and this SDK cannot drift apart), checked against the SDK's signers and verifier.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";

import {
  bodySignature,
  canonicalJson,
  HmacAuth,
  InvalidWebhookSignature,
  requestSignature,
  signingMessage,
  StaleWebhook,
  verifyWebhook,
  webhookSignature,
} from "@mccgw/client";

const DOCS = resolve(process.cwd(), "..", "..", "docs");
const SECRET = "sk_test_0123456789abcdef";
const WEBHOOK_SECRET = "whsec_test_0123456789abcdef";

function section(page: string): string {
  const text = readFileSync(resolve(DOCS, page), "utf8");
  const found = text.split("### Test vectors")[1];
  assert.ok(found, `${page} has its test vectors`);
  return found;
}

interface Vector {
  method: string;
  target: string;
  ts: string;
  body: unknown;
  message: string;
  signature: string;
}

function accessVectors(): Vector[] {
  const row =
    /^\| `(?<method>[A-Z]+) (?<target>[^`]+)`, timestamp `(?<ts>\d+)`, (?:body `(?<body>.*?)`|no body) \| (?<message>.*?) \| `(?<sig>sha256=[0-9a-f]{64})` \|$/gm;
  return [...section("access.md").matchAll(row)].map((m) => {
    const g = m.groups!;
    const parts = [...g["message"]!.matchAll(/`([^`]*)`|(\(empty line\))/g)].map((t) => t[1] ?? "");
    return {
      method: g["method"]!,
      target: g["target"]!,
      ts: g["ts"]!,
      body: g["body"] ? JSON.parse(g["body"]) : undefined,
      message: parts.join("\n"),
      signature: g["sig"]!,
    };
  });
}

test("HMAC request vectors of docs/access.md", () => {
  const vectors = accessVectors();
  assert.deepEqual(vectors.map((v) => v.method), ["POST", "GET"]);
  for (const v of vectors) {
    assert.equal(signingMessage(v.method, v.target, v.ts, v.body), v.message);
    assert.equal(requestSignature(SECRET, v.method, v.target, v.ts, v.body), v.signature);
    const headers = new HmacAuth(1, SECRET, () => Number(v.ts)).headers(v.method, v.target, v.body);
    assert.equal(headers["X-Signature"], v.signature);
    assert.equal(headers["X-Timestamp"], v.ts);
  }
});

test("the raw-body signature vector of docs/access.md", () => {
  const m = /`X-Project-Signature` of the raw body\s+`(?<body>[^`]+)` is\s+`(?<sig>[0-9a-f]{64})`/.exec(
    section("access.md"),
  );
  assert.ok(m?.groups);
  assert.equal(bodySignature(SECRET, m.groups["body"]!), m.groups["sig"]);
});

test("canonical JSON is Python's sorted compact form, non-ASCII unescaped", () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, "é"], c: null } }), '{"a":{"c":null,"d":[1,"é"]},"b":1}');
  assert.equal(canonicalJson(undefined), "");
});

test("a write signed twice in one second gets a later timestamp", () => {
  const auth = new HmacAuth(7, SECRET, () => 1_700_000_000.2);
  const first = auth.headers("POST", "/v1/funds/lock", { a: 1 });
  const second = auth.headers("POST", "/v1/funds/lock", { a: 1 });
  assert.equal(Number(second["X-Timestamp"]), Number(first["X-Timestamp"]) + 1);
  assert.notEqual(first["X-Signature"], second["X-Signature"]);
});

test("webhook vectors of docs/webhooks.md: good, tampered, stale", () => {
  const rows = [...section("webhooks.md").matchAll(/^\| `(\{.*\})` \| `(sha256=[0-9a-f]{64})` \|$/gm)];
  assert.equal(rows.length, 2);
  const now = 1_700_000_000;
  for (const [, body, signature] of rows) {
    const raw = new TextEncoder().encode(body!);
    assert.equal(webhookSignature(WEBHOOK_SECRET, raw), signature);
    const headers = { "x-service-signature": signature!, "x-service-timestamp": String(now), "x-service-delivery": "dlv_1" };
    const event = verifyWebhook(WEBHOOK_SECRET, headers, raw, { now });
    assert.equal(event.id, JSON.parse(body!).id);
    assert.equal(event.deliveryId, "dlv_1");
    // A rotated secret list, fetch's Headers and pairs are all accepted.
    verifyWebhook(["whsec_old", WEBHOOK_SECRET], new Headers(headers), raw, { now });
    verifyWebhook(WEBHOOK_SECRET, Object.entries(headers), body!, { now });
    const tampered = body!.replace('"data":{', '"data":{"x":1,');
    assert.throws(() => verifyWebhook(WEBHOOK_SECRET, headers, tampered, { now }), InvalidWebhookSignature);
    assert.throws(() => verifyWebhook("whsec_wrong", headers, raw, { now }), InvalidWebhookSignature);
    assert.throws(() => verifyWebhook(WEBHOOK_SECRET, headers, raw, { now: now + 301 }), StaleWebhook);
  }
});

test("a delivery made during a secret roll carries both signatures: either secret verifies it", () => {
  // Review 2026-11-28, L4: the whole header was compared as one signature, so every delivery
  // of a roll's overlap (X-Service-Signature: sha256=<new> sha256=<old>) was refused.
  const body = '{"id":"evt_1","type":"transfer.completed","created_at":"x","data":{}}';
  const now = 1_700_000_000;
  const newer = "whsec_new_" + "a".repeat(24);
  const older = "whsec_old_" + "b".repeat(24);
  const both = webhookSignature(newer, body) + " " + webhookSignature(older, body);
  const headers = { "x-service-signature": both, "x-service-timestamp": String(now) };
  assert.equal(verifyWebhook(newer, headers, body, { now }).id, "evt_1");
  assert.equal(verifyWebhook(older, headers, body, { now }).id, "evt_1");
  assert.equal(verifyWebhook([newer, older], headers, body, { now }).id, "evt_1");
  assert.throws(() => verifyWebhook("whsec_someone_else", headers, body, { now }), InvalidWebhookSignature);
});

test("an empty secret is refused, not used", () => {
  // Review 2026-11-28, L4: a receiver configured without its secret accepted what anyone signs with "".
  const body = '{"id":"evt_1","type":"t","created_at":"x","data":{}}';
  const now = 1_700_000_000;
  const headers = { "x-service-signature": webhookSignature("", body), "x-service-timestamp": String(now) };
  for (const secret of ["", [], ["", WEBHOOK_SECRET], [WEBHOOK_SECRET, ""]]) {
    assert.throws(() => verifyWebhook(secret, headers, body, { now }), TypeError);
  }
});
