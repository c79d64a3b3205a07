// Against a live gateway (tests/sdk/test_typescript.py serves the suite's app and passes
// MCCGW_BASE_URL, MCCGW_PROJECT_ID, MCCGW_API_SECRET and MCCGW_USER_UID, a user who authorized
// the project): signed resource calls, typed answers and problems, pages, and a write whose
// answer is lost on the way retried with its key and replayed by the gateway, not done twice.
import assert from "node:assert/strict";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { ApiKeyAuth, Client, HmacAuth, NotFound, ValidationError } from "@mccgw/client";

const env = process.env;
const live = Boolean(env["MCCGW_BASE_URL"] && env["MCCGW_PROJECT_ID"] && env["MCCGW_API_SECRET"] && env["MCCGW_USER_UID"]);
const base = env["MCCGW_BASE_URL"] ?? "";
const projectId = env["MCCGW_PROJECT_ID"] ?? "";
const secret = env["MCCGW_API_SECRET"] ?? "";
const uid = env["MCCGW_USER_UID"] ?? "";

test("signed resource calls against the gateway", { skip: !live && "no live gateway (MCCGW_*)" }, async () => {
  const gw = new Client(base, new HmacAuth(projectId, secret));
  const attribute = await gw.users.attributes.report(uid, { attribute_key: "level", attribute_value: { rank: "gold" } });
  assert.equal(attribute.attributes.attribute_key, "level");
  // The per-project attributes are paged like every list: gather the pages' rows.
  const mine: string[] = [];
  for await (const page of gw.users.attributes.forProject(uid, Number(projectId))) {
    mine.push(...page.data.map((a) => a.attributes.attribute_key));
  }
  assert.deepEqual(mine, ["level"]);
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    ids.push((await gw.webhooks.register({ url: `http://127.0.0.1:9/ts-${n}`, events: ["transfer.completed"] })).id);
  }
  const sizes: number[] = [];
  const listed: string[] = [];
  for await (const page of gw.webhooks.list({ perPage: 2 })) {
    sizes.push(page.data.length);
    listed.push(...page.data.map((e) => e.id));
    assert.equal(page.meta.total, 3);
  }
  assert.deepEqual(sizes, [2, 1]);
  assert.deepEqual(listed.sort(), [...ids].sort());
  const updated = await gw.webhooks.update(ids[0]!, { enabled: false });
  assert.equal(updated.attributes.status, "disabled");
  assert.equal((await gw.webhooks.retrieve(ids[0]!)).attributes.status, "disabled");
  await gw.webhooks.delete(ids[0]!);
  await assert.rejects(gw.webhooks.retrieve(ids[0]!), NotFound);
  await assert.rejects(gw.transfers.retrieve("tr_missing"), NotFound);
  await assert.rejects(gw.webhooks.register({ url: "ftp://example.com/hook", events: ["funds.locked"] }), (e: unknown) => {
    assert.ok(e instanceof ValidationError);
    assert.equal(e.status, 422);
    assert.ok(e.errors.length > 0);
    return true;
  });
  // The same calls with the API-key form.
  const keyed = new Client(base, new ApiKeyAuth(projectId, secret));
  assert.equal((await keyed.webhooks.retrieve(ids[1]!)).id, ids[1]);
});

test("a lost answer is retried with its key and replayed, not done twice", { skip: !live && "no live gateway (MCCGW_*)" }, async () => {
  // A proxy that forwards to the gateway and, for the first request, drops the answer.
  const target = new URL(base);
  let forwarded = 0;
  const answers: number[] = [];
  const proxy = createServer((req, res) => {
    forwarded += 1;
    const n = forwarded;
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          answers.push(answer.statusCode ?? 0);
          if (n === 1) return void res.socket?.destroy();
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
  try {
    const port = (proxy.address() as AddressInfo).port;
    const gw = new Client(`http://127.0.0.1:${port}`, new HmacAuth(projectId, secret), { retry: { backoff: 0.01 } });
    const answer = await gw.post(`/v1/users/${uid}/attributes`, { json: { attribute_key: "xp", attribute_value: 7 } });
    assert.equal(answer.attempts, 2);
    assert.ok(answer.replayed);
    assert.deepEqual(answers, [200, 200]); // the first was done; its answer only got lost
    const keys: string[] = [];
    const pages = new Client(base, new HmacAuth(projectId, secret)).users.attributes.forProject(uid, Number(projectId));
    for await (const page of pages) keys.push(...page.data.map((a) => a.attributes.attribute_key));
    assert.equal(keys.filter((k) => k === "xp").length, 1);
  } finally {
    proxy.close();
  }
});

test("public reads with the browser entry and no credentials", { skip: !live && "no live gateway (MCCGW_*)" }, async () => {
  const browser = await import("@mccgw/client/browser");
  const page = new browser.Client(base); // what a web page holds: no secret, no token
  const status = await page.projects.status(Number(projectId));
  assert.equal(status.attributes.project_id, projectId);
  assert.equal(typeof status.attributes.suspended, "boolean");
  assert.equal((await page.users.public(uid)).id, uid);
  // A project route without credentials is refused, typed, as from the Node entry.
  await assert.rejects(page.webhooks.retrieve("wh_x"), (e: unknown) => e instanceof browser.ProblemError && e.status === 401);
});
