// A consumer of @mccgw/client, as an auction site's Node server would write it. `npm test` type
// checks it with `tsc --strict` (examples/tsconfig.json): the resource methods' arguments and
// answers are typed, and each `@ts-expect-error` below must stay an error.
import {
  AdminClient,
  BearerAuth,
  Client,
  HmacAuth,
  InsufficientFunds,
  type models,
  NotFound,
  ProblemError,
  verifyWebhook,
} from "@mccgw/client";

export async function settleAuction(gw: Client, bidder: string, seller: string): Promise<string> {
  let lock: models.TypedResourceLockAttributes;
  try {
    lock = await gw.funds.lock({
      user_uid: bidder,
      currency: "MCC",
      amount: "25",
      reason: "bid on auction 42",
      reference_id: "auction-42",
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
  } catch (e) {
    if (e instanceof InsufficientFunds) return `refused: ${e.detail} (${String(e.body["available_balance"])})`;
    throw e;
  }
  const status: string = lock.attributes.status;
  const transfer = await gw.transfers.request({
    transfer_type: "auction_settlement",
    from_uid: bidder,
    to_uid: seller,
    currency: "MCC",
    amount: "25",
    reference: { auction_id: "42", lock_id: lock.id },
  });
  for await (const page of gw.funds.locked(bidder, { perPage: 50 })) {
    for (const held of page.data) console.log(held.id, held.attributes.amount, page.meta.total);
  }
  try {
    await gw.webhooks.retrieve("wh_missing");
  } catch (e) {
    if (!(e instanceof NotFound) && e instanceof ProblemError) console.log(e.slug, e.status);
  }
  return `${status} ${transfer.id} ${transfer.attributes.status}`;
}

export async function approve(admin: AdminClient, applicationId: string): Promise<string | undefined> {
  const answer = (await admin.projects.approve(applicationId)).attributes;
  return "api_secret" in answer ? answer.api_secret : undefined; // 200 (202 `approving` only from gateways before 1.1.0)
}

export function receive(secret: string, headers: Record<string, string | string[] | undefined>, raw: Buffer): string {
  return verifyWebhook(secret, headers, raw).type;
}

export async function mistakes(gw: Client): Promise<void> {
  const expires_at = "2030-01-01T00:00:00Z";
  // @ts-expect-error: no such currency
  await gw.funds.lock({ user_uid: "u", currency: "EUR", amount: "1", reason: "r", expires_at });
  // @ts-expect-error: no such field
  await gw.funds.lock({ user_uid: "u", currency: "MCC", amount: "1", reason: "r", expires_at, colour: "red" });
  // @ts-expect-error: reason is required
  await gw.funds.lock({ user_uid: "u", currency: "MCC", amount: "1", expires_at });
  // @ts-expect-error: the id is a string
  const n: number = (await gw.funds.lock({ user_uid: "u", currency: "MCC", amount: "1", reason: "r", expires_at })).id;
  console.log(n);
}

export const clients = [
  new Client("http://127.0.0.1:8000", new HmacAuth(1, "sk_...")),
  new AdminClient("http://127.0.0.1:8000", new BearerAuth("token")),
];
