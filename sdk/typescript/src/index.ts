/**
 * @mccgw/client: the TypeScript client of the mccgw gateway (Node 20; browsers: ./browser).
 *
 *     import { Client, HmacAuth } from "@mccgw/client";
 *     const gw = new Client("https://gw.example", new HmacAuth(projectId, apiSecret));
 *     const lock = await gw.funds.lock({ user_uid, currency: "MCC", amount: "25", reason: "bid", expires_at });
 *
 * See sdk/typescript/README.md.
 */
export * from "./browser.js";
export {
  bodySignature,
  HmacAuth,
  hmacHex,
  requestSignature,
  signaturesEqual,
  signingMessage,
} from "./signing.js";
export {
  InvalidWebhookSignature,
  StaleWebhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
  webhookSignature,
} from "./webhooks.js";
